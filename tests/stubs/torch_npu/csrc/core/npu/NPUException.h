// torch_npu's error check: NPU_CHECK_ERROR takes an aclError.
#pragma once
#include <acl/acl.h>

namespace c10_npu {
void check_acl(aclError status, const char* expression);
}  // namespace c10_npu
#define NPU_CHECK_ERROR(err_code, ...) ::c10_npu::check_acl((err_code), #err_code)
