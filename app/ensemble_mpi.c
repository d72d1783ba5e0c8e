/* MPI hand-out of ensemble members: rank 0 keeps the counter of the next member and answers the
   other ranks' requests between its own members and, while it runs one, from the member's step
   callback (polled at most every millisecond). Every rank runs members, so K ranks keep K cores
   busy; members go out one at a time, so long and short ones balance. The members' files (and
   the markers the summary reads) go to the shared output directory. */
#include "ensemble_cli.h"
#include "wall_clock.h"
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { TAG_REQUEST = 1601, TAG_MEMBER = 1602 };

int agglo_cli_mpi_launched(void) {
  return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMI_SIZE") || getenv("PMIX_RANK") ||
         getenv("PMI_RANK");
}

typedef struct {
  agglo_ensemble *e;
  size_t next, count;
  int stopped, nranks;
  double last_poll;
} dispatcher;

/* The next member to run (skipping the finished ones of a resumed ensemble); -1 when none. */
static long take(dispatcher *d) {
  while (d->next < d->count && agglo_ensemble_member_done(d->e, d->next)) d->next++;
  return d->next < d->count ? (long)d->next++ : -1;
}

/* Answer every pending request. */
static void serve(dispatcher *d) {
  for (;;) {
    int flag = 0;
    MPI_Status s;
    MPI_Iprobe(MPI_ANY_SOURCE, TAG_REQUEST, MPI_COMM_WORLD, &flag, &s);
    if (!flag) return;
    int dummy;
    MPI_Recv(&dummy, 1, MPI_INT, s.MPI_SOURCE, TAG_REQUEST, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    long i = take(d);
    if (i < 0) d->stopped++;
    MPI_Send(&i, 1, MPI_LONG, s.MPI_SOURCE, TAG_MEMBER, MPI_COMM_WORLD);
  }
}

static int poll_requests(agglo_sim *sim, void *user) {
  (void)sim;
  dispatcher *d = user;
  double t = agglo_cli_wall_seconds();
  if (t - d->last_poll > 1e-3) {
    d->last_poll = t;
    serve(d);
  }
  return 0;
}

int agglo_cli_mpi_ensemble(agglo_ensemble *e, const char *dir, int mode, int quiet,
                           agglo_cli_report_fn report, void *user) {
  int provided = 0, rank = 0, nranks = 1;
  MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  /* rank 0 makes (or checks) the directory and holds it; the others then check it holds this
     ensemble */
  int ok = 1;
  if (rank == 0 && agglo_ensemble_prepare(e, mode) != AGGLO_OK) {
    fprintf(stderr, "agglo: %s\n", agglo_last_error());
    ok = 0;
  }
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (ok && rank != 0 && agglo_ensemble_prepare(e, AGGLO_ENSEMBLE_JOIN) != AGGLO_OK) {
    fprintf(stderr, "agglo: rank %d: %s (is -o on a file system every host shares?)\n", rank,
            agglo_last_error());
    ok = 0;
  }
  int all_ok = 0;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!all_ok) {
    MPI_Finalize();
    return 2;
  }
  int fatal = 0;
  if (rank == 0) {
    dispatcher d = {.e = e, .count = agglo_ensemble_count(e), .nranks = nranks, .last_poll = agglo_cli_wall_seconds()};
    long i;
    while ((i = take(&d)) >= 0) {
      serve(&d);
      if (agglo_cli_run_member(e, (size_t)i, nranks > 1 ? poll_requests : NULL, &d, rank, quiet) < 0)
        fatal = 1;
    }
    while (d.stopped < nranks - 1) {
      serve(&d);
      struct timespec ts = {0, 1000000};
      nanosleep(&ts, NULL);
    }
  } else {
    for (;;) {
      int dummy = 0;
      long i;
      MPI_Send(&dummy, 1, MPI_INT, 0, TAG_REQUEST, MPI_COMM_WORLD);
      MPI_Recv(&i, 1, MPI_LONG, 0, TAG_MEMBER, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      if (i < 0) break;
      if (agglo_cli_run_member(e, (size_t)i, NULL, NULL, rank, quiet) < 0) fatal = 1;
    }
  }
  int any_fatal = 0;
  MPI_Allreduce(&fatal, &any_fatal, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  int rc = 0;
  if (rank == 0) rc = any_fatal ? 1 : agglo_cli_finish(e, dir, quiet, report, user);
  MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  return rc;
}
