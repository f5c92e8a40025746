// torch_mlu's error check: TORCH_CNRT_CHECK takes a cnrtRet_t.
#pragma once
#include <cnrt.h>

namespace torch_mlu {
void check_cnrt(cnrtRet_t status, const char* expression);
}  // namespace torch_mlu
#define TORCH_CNRT_CHECK(EXPR) ::torch_mlu::check_cnrt((EXPR), #EXPR)
