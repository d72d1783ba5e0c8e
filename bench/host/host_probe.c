/* How steady the machine is, apart from agglo: the same fixed work timed on each core alone and
   on both cores at once, repeated. Two kinds of work: "memory", a dependent random walk over
   32 MiB (the latency of the shared cache and memory, what the contact step's gathers wait
   on), and "compute", independent multiply-adds in the L1 cache. The spread of the alone times
   is the host's own scatter; (both at once) / (alone) is what running the second core costs the
   first, so 2 / that ratio is the ceiling of a 2-thread speed-up whatever the code does
   (docs/performance.md). Linux only (pins with sched_setaffinity).

   usage: host_probe [repeats (default 5)] */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define WALK (4u << 20) /* doubles: 32 MiB */
#define REPEATS_MAX 1000

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

typedef struct {
  int cpu, kind;
  const uint32_t *next; /* the walk's permutation (one cycle) */
  double seconds, sink;
  int pinned; /* 0: the core could not be taken (then the times mean nothing) */
} job;

static void *run(void *arg) {
  job *j = arg;
  cpu_set_t cs;
  CPU_ZERO(&cs);
  CPU_SET(j->cpu, &cs);
  j->pinned = sched_setaffinity(0, sizeof cs, &cs) == 0; /* (this thread) */
  if (!j->pinned) return NULL;
  double t0 = now(), s = 0;
  if (j->kind == 0) {
    uint32_t at = 0;
    for (uint32_t i = 0; i < 3000000u; i++) at = j->next[at];
    s = at;
  } else {
    double a[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    for (int r = 0; r < 20000000; r++)
      for (int l = 0; l < 8; l++) a[l] = a[l] * 0.999999 + 1e-7;
    for (int l = 0; l < 8; l++) s += a[l];
  }
  j->sink = s;
  j->seconds = now() - t0;
  return NULL;
}

/* the jobs on the given cores at once; returns 0 or -1 */
static int at_once(job *jobs, int n) {
  pthread_t th[2];
  for (int k = 0; k < n; k++)
    if (pthread_create(&th[k], NULL, run, &jobs[k]) != 0) {
      fprintf(stderr, "host_probe: cannot start a thread\n");
      for (int q = 0; q < k; q++) pthread_join(th[q], NULL);
      return -1;
    }
  for (int k = 0; k < n; k++) pthread_join(th[k], NULL);
  for (int k = 0; k < n; k++)
    if (!jobs[k].pinned) {
      fprintf(stderr, "host_probe: cannot run on core %d (allowed: cores 0 and 1 online and "
              "in this process's affinity mask)\n", jobs[k].cpu);
      return -1;
    }
  return 0;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  int repeats = argc > 1 ? atoi(argv[1]) : 5;
  if (repeats < 1 || repeats > REPEATS_MAX) {
    fprintf(stderr, "host_probe: repeats %s (allowed: 1 to %d)\n", argv[1], REPEATS_MAX);
    return 2;
  }
  if (sysconf(_SC_NPROCESSORS_ONLN) < 2) {
    fprintf(stderr, "host_probe: needs 2 cores\n");
    return 2;
  }
  /* one random cycle through the walk (Sattolo's shuffle), fixed seed */
  uint32_t *next = malloc(WALK * sizeof *next), *perm = malloc(WALK * sizeof *perm);
  double *t = malloc(4 * (size_t)repeats * sizeof *t);
  if (!next || !perm || !t) {
    fprintf(stderr, "host_probe: out of memory\n");
    return 1;
  }
  uint64_t x = 88172645463325252ull;
  for (uint32_t i = 0; i < WALK; i++) perm[i] = i;
  for (uint32_t i = WALK - 1; i > 0; i--) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    uint32_t k = (uint32_t)(x % i), tmp = perm[i];
    perm[i] = perm[k], perm[k] = tmp;
  }
  for (uint32_t i = 0; i < WALK; i++) next[perm[i]] = perm[(i + 1) % WALK];
  free(perm);
  printf("| work | core 0 alone (min, median, max s) | core 1 alone | each of both at once | "
         "median slowdown | ceiling of 2 threads |\n| --- | --- | --- | --- | --- | --- |\n");
  for (int kind = 0; kind < 2; kind++) {
    double *a0 = t, *a1 = t + repeats, *both = t + 2 * (size_t)repeats; /* both: 2 per repeat */
    for (int r = 0; r < repeats; r++) { /* in turn, so that the three see the same drift */
      job j0 = {0, kind, next, 0, 0, 0}, j1 = {1, kind, next, 0, 0, 0}, jb[2] = {j0, j1};
      if (at_once(&j0, 1) || at_once(&j1, 1) || at_once(jb, 2)) return 1;
      a0[r] = j0.seconds, a1[r] = j1.seconds;
      both[2 * r] = jb[0].seconds, both[2 * r + 1] = jb[1].seconds;
    }
    qsort(a0, (size_t)repeats, sizeof *a0, cmp);
    qsort(a1, (size_t)repeats, sizeof *a1, cmp);
    qsort(both, 2 * (size_t)repeats, sizeof *both, cmp);
    double alone = 0.5 * (a0[repeats / 2] + a1[repeats / 2]), b = both[repeats];
    printf("| %s | %.3f, %.3f, %.3f | %.3f, %.3f, %.3f | %.3f, %.3f, %.3f | %.2f | %.2fx |\n",
           kind ? "compute (L1)" : "memory (32 MiB walk)", a0[0], a0[repeats / 2], a0[repeats - 1],
           a1[0], a1[repeats / 2], a1[repeats - 1], both[0], b, both[2 * repeats - 1], b / alone,
           2 * alone / b);
  }
  free(next);
  free(t);
  return 0;
}
