/* augment.c - the virtual samples of --augment (fsvc_base.h): each image
 * shifted and/or mirrored, made per block of samples by the ridge
 * readout's block products (layers/cpu_hprod.c, layers/dev_hprod.c). */
#include "fsvc_base.h"

#include <string.h>

static const int off1[5][2] = {{0, 0}, {0, 1}, {0, -1}, {1, 0}, {-1, 0}};
static const int off2[13][2] = {{0, 0}, {0, 1}, {0, -1}, {1, 0}, {-1, 0}, {0, 2}, {0, -2},
                                {2, 0}, {-2, 0}, {1, 1}, {1, -1}, {-1, 1}, {-1, -1}};

/* offsets (dy, dx) and mirror count of an augmentation */
static const int (*aug_offsets(fsvc_augment a, int *no, int *nf))[2]
{
    *nf = a == FSVC_AUG_MIRROR || a == FSVC_AUG_MIRROR_SHIFT1 ? 2 : 1;
    *no = a == FSVC_AUG_SHIFT1 || a == FSVC_AUG_MIRROR_SHIFT1 ? 5 : a == FSVC_AUG_SHIFT2 ? 13 : 1;
    return *no == 13 ? off2 : off1;
}

int fsvc_augment_count(fsvc_augment a)
{
    int no, nf;
    aug_offsets(a, &no, &nf);
    return no * nf;
}

void fsvc_augment_apply(void *dst, const void *src, int rows, int cols, size_t es,
                        fsvc_augment a, int v)
{
    int no, nf;
    const int (*off)[2] = aug_offsets(a, &no, &nf);
    int flip = v / no, dy = off[v % no][0], dx = off[v % no][1];
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++) {
            int sr = r - dy, sc = c - dx; /* the pixel that lands on (r, c) */
            if (flip) sc = cols - 1 - sc;
            char *d = (char *)dst + ((size_t)r * cols + c) * es;
            if (sr < 0 || sr >= rows || sc < 0 || sc >= cols) memset(d, 0, es);
            else memcpy(d, (const char *)src + ((size_t)sr * cols + sc) * es, es);
        }
}
