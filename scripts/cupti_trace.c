/* A timeline of a CUDA program's device work without Nsight Systems: a CUPTI
 * activity-tracing library the driver loads at start-up
 * (CUDA_INJECTION64_PATH names it; the driver calls InitializeInjection, as
 * CUPTI's own cupti_trace_injection sample is loaded).  It writes one line
 * per kernel, copy, memset, runtime call and synchronisation to
 * $XC_TRACE_OUT (default cupti-trace.txt), start and end in ns of one clock:
 *   K start end stream grid block regs name
 *   M start end stream bytes kind src dst
 *                (kind: 1 HtoD, 2 DtoH, 8 DtoD, ...; src, dst: 1 pageable,
 *                 2 page-locked, 3 device)
 *   S start end stream bytes
 *   R start end thread name          (runtime API)
 *   Y start end stream type          (synchronisation)
 * scripts/gpu-trace.sh builds it on the device and summarises the trace. */
#include <cupti.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static FILE *out;

static void CUPTIAPI buf_request(uint8_t **buf, size_t *size, size_t *maxrec)
{
    *size = (size_t)16 << 20;
    *buf = aligned_alloc(8, *size);
    *maxrec = 0;
}

static void one(const CUpti_Activity *r)
{
    switch (r->kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
        const CUpti_ActivityKernel10 *k = (const void *)r;
        fprintf(out, "K %llu %llu %u %u %u %u %s\n", (unsigned long long)k->start, (unsigned long long)k->end,
                k->streamId, k->gridX * k->gridY * k->gridZ, k->blockX * k->blockY * k->blockZ,
                (unsigned)k->registersPerThread, k->name);
        break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
        const CUpti_ActivityMemcpy6 *m = (const void *)r;
        fprintf(out, "M %llu %llu %u %llu %u %u %u\n", (unsigned long long)m->start, (unsigned long long)m->end,
                m->streamId, (unsigned long long)m->bytes, (unsigned)m->copyKind, (unsigned)m->srcKind,
                (unsigned)m->dstKind);
        break;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
        const CUpti_ActivityMemset4 *m = (const void *)r;
        fprintf(out, "S %llu %llu %u %llu\n", (unsigned long long)m->start, (unsigned long long)m->end, m->streamId,
                (unsigned long long)m->bytes);
        break;
    }
    case CUPTI_ACTIVITY_KIND_RUNTIME: {
        const CUpti_ActivityAPI *a = (const void *)r;
        const char *name = NULL;
        if (cuptiGetCallbackName(CUPTI_CB_DOMAIN_RUNTIME_API, a->cbid, &name) != CUPTI_SUCCESS || !name)
            name = "?";
        fprintf(out, "R %llu %llu %u %s\n", (unsigned long long)a->start, (unsigned long long)a->end, a->threadId,
                name);
        break;
    }
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: {
        const CUpti_ActivitySynchronization2 *y = (const void *)r;
        fprintf(out, "Y %llu %llu %u %u\n", (unsigned long long)y->start, (unsigned long long)y->end, y->streamId,
                (unsigned)y->type);
        break;
    }
    default:
        break;
    }
}

static void CUPTIAPI buf_done(CUcontext ctx, uint32_t sid, uint8_t *buf, size_t size, size_t valid)
{
    (void)ctx;
    (void)sid;
    (void)size;
    CUpti_Activity *r = NULL;
    while (out && cuptiActivityGetNextRecord(buf, valid, &r) == CUPTI_SUCCESS)
        one(r);
    free(buf);
}

static void at_exit(void)
{
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    if (out)
        fclose(out);
    out = NULL;
}

__attribute__((visibility("default"))) int InitializeInjection(void)
{
    const char *p = getenv("XC_TRACE_OUT");
    out = fopen(p && *p ? p : "cupti-trace.txt", "w");
    if (!out)
        return 0;
    static const CUpti_ActivityKind kinds[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
                                               CUPTI_ACTIVITY_KIND_MEMSET, CUPTI_ACTIVITY_KIND_RUNTIME,
                                               CUPTI_ACTIVITY_KIND_SYNCHRONIZATION};
    cuptiActivityRegisterCallbacks(buf_request, buf_done);
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (cuptiActivityEnable(kinds[i]) != CUPTI_SUCCESS)
            fprintf(stderr, "cupti_trace: activity kind %d not enabled\n", (int)kinds[i]);
    atexit(at_exit);
    return 1;
}
