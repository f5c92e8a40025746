// Stub of the CNCL declarations cudaport rewrites into (see README.md).
#pragma once
#include <cstddef>
#include <cnrt.h>

typedef enum { CNCL_RET_SUCCESS = 0, CNCL_RET_ERR_INTERNAL = 1 } cnclResult_t;
typedef enum { cnclHalf = 0x10, cnclBfloat16 = 0x11, cnclFloat = 0x12, cnclInt32 = 0x22 } cnclDataType_t;
typedef enum { cnclSum = 0, cnclProd = 1, cnclMax = 2, cnclMin = 3 } cnclReduceOp_t;
typedef struct cnclComm *cnclComm_t;
struct cnclCliqueId { char data[128]; unsigned long long hash; };
typedef struct cnclCliqueId *cnclCliqueId_t;

cnclResult_t cnclGetCliqueId(cnclCliqueId_t clique_id);
cnclResult_t cnclInitComms(cnclComm_t *comms, int num_comm, const int *dev_list, const int *rank_list, int nrank,
                           const cnclCliqueId_t clique_id);
cnclResult_t cnclFreeComm(cnclComm_t comm);
cnclResult_t cnclAllReduce(const void *send_buffer, void *recv_buffer, size_t count, cnclDataType_t data_type,
                           cnclReduceOp_t reduce_op, cnclComm_t comm, cnrtQueue_t queue);
cnclResult_t cnclBroadcast(const void *send_buffer, void *recv_buffer, size_t count, cnclDataType_t data_type,
                           int root, cnclComm_t comm, cnrtQueue_t queue);
cnclResult_t cnclAllGather(const void *send_buffer, void *recv_buffer, size_t count, cnclDataType_t data_type,
                           cnclComm_t comm, cnrtQueue_t queue);
cnclResult_t cnclReduceScatter(const void *send_buffer, void *recv_buffer, size_t count, cnclDataType_t data_type,
                               cnclReduceOp_t reduce_op, cnclComm_t comm, cnrtQueue_t queue);
cnclResult_t cnclReduce(const void *send_buffer, void *recv_buffer, size_t count, cnclDataType_t data_type,
                        cnclReduceOp_t reduce_op, int root, cnclComm_t comm, cnrtQueue_t queue);
cnclResult_t cnclSend(void *buffer, size_t count, cnclDataType_t data_type, int dest, cnclComm_t comm,
                      cnrtQueue_t queue);
cnclResult_t cnclRecv(void *buffer, size_t count, cnclDataType_t data_type, int source, cnclComm_t comm,
                      cnrtQueue_t queue);
cnclResult_t cnclGroupStart();
cnclResult_t cnclGroupEnd();
const char *cnclGetErrorStr(cnclResult_t result);
