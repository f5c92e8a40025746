// Stub of the CNRT declarations cudaport rewrites into (see README.md).
#pragma once
#include <cstddef>

typedef enum { cnrtSuccess = 0, cnrtErrorBusy = 1 } cnrtRet_t;
typedef struct CNqueue *cnrtQueue_t;
typedef struct CNnotifier *cnrtNotifier_t;
typedef enum {
  cnrtMemcpyHostToDev = 0,
  cnrtMemcpyDevToDev,
  cnrtMemcpyDevToHost,
  cnrtMemcpyHostToHost,
  cnrtMemcpyPeerToPeer,
  cnrtMemcpyNoDirection,
} cnrtMemTransDir_t;

cnrtRet_t cnrtSetDevice(int device);
cnrtRet_t cnrtGetDevice(int *device);
cnrtRet_t cnrtGetDeviceCount(unsigned int *count);
cnrtRet_t cnrtSyncDevice();
cnrtRet_t cnrtMalloc(void **ptr, size_t bytes);
cnrtRet_t cnrtFree(void *ptr);
cnrtRet_t cnrtHostMalloc(void **ptr, size_t bytes);
cnrtRet_t cnrtFreeHost(void *ptr);
cnrtRet_t cnrtMemcpy(void *dst, void *src, size_t bytes, cnrtMemTransDir_t dir);
cnrtRet_t cnrtMemcpyAsync(void *dst, void *src, size_t bytes, cnrtQueue_t queue, cnrtMemTransDir_t dir);
cnrtRet_t cnrtMemset(void *ptr, int value, size_t bytes);
cnrtRet_t cnrtMemsetAsync(void *ptr, int value, size_t bytes, cnrtQueue_t queue);
cnrtRet_t cnrtMemGetInfo(size_t *free, size_t *total);
cnrtRet_t cnrtQueueCreate(cnrtQueue_t *queue);
cnrtRet_t cnrtQueueDestroy(cnrtQueue_t queue);
cnrtRet_t cnrtQueueSync(cnrtQueue_t queue);
cnrtRet_t cnrtQueueQuery(cnrtQueue_t queue);
cnrtRet_t cnrtQueueWaitNotifier(cnrtNotifier_t notifier, cnrtQueue_t queue, unsigned int flag);
cnrtRet_t cnrtNotifierCreate(cnrtNotifier_t *notifier);
cnrtRet_t cnrtNotifierDestroy(cnrtNotifier_t notifier);
cnrtRet_t cnrtPlaceNotifier(cnrtNotifier_t notifier, cnrtQueue_t queue);
cnrtRet_t cnrtWaitNotifier(cnrtNotifier_t notifier);
cnrtRet_t cnrtQueryNotifier(cnrtNotifier_t notifier);
cnrtRet_t cnrtNotifierElapsedTime(cnrtNotifier_t start, cnrtNotifier_t end, float *ms);
cnrtRet_t cnrtGetLastError();
const char *cnrtGetErrorStr(cnrtRet_t error);
