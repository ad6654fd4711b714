/* replay_selftest.c - a target for checking tests/fuzz/replay.c itself
 * (make fuzz-replay): the input "crash" aborts, "hang" never returns, any
 * other input passes. The replay must pass the third and fail the first
 * two, naming the file. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 5 && !memcmp(data, "crash", 5))
        abort();
    if (size == 4 && !memcmp(data, "hang", 4))
        for (;;)
            pause();
    return 0;
}
