/* xc_devpick (core/base/xc_devpick.h): the GPU an MPI rank of `crosscheck
 * study` binds to, the node-local rank modulo the devices it sees, written
 * as the CUDA_VISIBLE_DEVICES value it sets.  Each case prints the rank,
 * the list, the observed and the expected entry on a mismatch. */
#include <stdio.h>
#include <string.h>

#include "core/base/xc_devpick.h"
#include "tests/xc_test.h"

/* One case: visible (NULL: unset) and ndev, the rank, the count and entry
 * expected. */
static void expect(const char *visible, int ndev, int rank, int count, const char *entry)
{
    char pick[32];
    int got = xc_devpick(visible, ndev, rank, pick, sizeof pick);
    if (got != count || strcmp(pick, entry))
        printf("\n  rank %d, CUDA_VISIBLE_DEVICES %s%s%s, %d on the node: got %d \"%s\", expected %d \"%s\"", rank,
               visible ? "\"" : "", visible ? visible : "unset", visible ? "\"" : "", ndev, got, pick, count, entry);
    CU_ASSERT_EQUAL(got, count);
    CU_ASSERT_STRING_EQUAL(pick, entry);
}

XC_TEST(test_devpick_ranks, "devpick_ranks")
{
    /* unset: the node's devices, ranks round-robin over them */
    expect(NULL, 2, 0, 2, "0");
    expect(NULL, 2, 1, 2, "1");
    expect(NULL, 2, 2, 2, "0");
    expect(NULL, 8, 13, 8, "5");
    expect(NULL, 0, 1, 0, "");
    /* a list (Slurm's --gpus-per-node, or a user's): its entries, as written */
    expect("2,3", 0, 0, 2, "2");
    expect("2,3", 0, 1, 2, "3");
    expect("2,3", 0, 3, 2, "3");
    expect(" 4 , 6 ", 0, 1, 2, "6");
    expect("GPU-8f6b,GPU-11aa", 8, 1, 2, "GPU-11aa");
    /* one entry (Slurm's --gpus-per-task=1): every rank keeps it */
    expect("1", 0, 0, 1, "1");
    expect("1", 0, 5, 1, "1");
    /* the runtime's end of the list: an empty or negative entry */
    expect("0,1,,3", 0, 2, 2, "0");
    expect("0,-1,2", 0, 1, 1, "0");
    expect("-1", 2, 0, 0, "");
    expect("", 2, 0, 0, "");
    /* a negative rank is taken as 0 */
    expect(NULL, 2, -3, 2, "0");
    /* an entry longer than the buffer */
    char small[4];
    CU_ASSERT_EQUAL(xc_devpick("GPU-8f6b", 0, 0, small, sizeof small), -1);
    CU_ASSERT_STRING_EQUAL(small, "");
}

XC_TEST_MAIN("devpick")
