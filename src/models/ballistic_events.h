/* The exact event-driven engine of rigid clusters on straight lines (ballistic_event_driven.c;
   docs/ballistic.md): the ballistic model's, and the Brownian clusters' of the dlca model, whose
   straight lines are flights that end in new directions (dlca_model.c, docs/dlca.md). */
#ifndef AGGLO_MODELS_BALLISTIC_EVENTS_H
#define AGGLO_MODELS_BALLISTIC_EVENTS_H
#include "core/model.h"
#include "models/ballistic_calendar.h"
#include <stdint.h>

/* A candidate pair in the list of the cluster of particle i: j's cluster b had build stamp
   `stamp` when the pair was found (the pair is dead once either cluster rebuilds or merges into
   another), gap is the gap between the two particles' build positions. */
typedef struct {
  int32_t i, j, b;
  uint64_t stamp;
  double gap;
} agglo_ed_pair;

/* A cluster, named by a member's storage index: what an event reads of it, in two cache lines
   (the engine's arrays of 10^5 clusters and more do not fit the caches). */
typedef struct {
  double X0[3], t0;      /* offset at the reference time t0 */
  double V[3], t_flight; /* velocity; end of its flight (INFINITY without motion) */
  double Xb[3], horizon; /* offset at its build; time of its own next event */
  uint64_t stamp;        /* unique stamp of its build (a pair found before it is dead) */
  agglo_ed_pair *plist;  /* its candidate pairs (i its member) */
  uint32_t plen;         /* their number */
  uint32_t ver;          /* bumped whenever its events change */
  int32_t size;          /* members (0: merged into another) */
  float margin;          /* how far it may move from its build before it rebuilds */
} agglo_ed_cluster;

typedef struct agglo_ed agglo_ed;

/* A particle j near member i of a rebuilding cluster, their build gap g (find_pairs_room). */
typedef struct {
  int32_t i, j;
  double g;
} agglo_ed_near;

/* Optional motion of the clusters beyond straight lines for ever (all NULL: ballistic). */
typedef struct {
  /* a new flight of cluster c from time t (its reference time is t): set its velocity
     e->V[3c..] and the end of the flight e->t_flight[c]; called for every cluster at the start,
     at the end of each flight, for a merged cluster and for the two clusters of a contact that
     does not stick */
  void (*flight)(void *ctx, agglo_ed *e, int32_t c, double t);
  /* 1: clusters a and b, in contact, stick (merge); 0: they part, each on a new flight */
  int (*sticks)(void *ctx, agglo_ed *e, int32_t a, int32_t b);
  void *ctx;
  /* optional (NULL: clusters never turn): the turn of cluster c at the end of its flight at time
     t, about its centre of mass: returns the angle (radians, 0: none) about the unit axis it
     sets; the engine stops the turn at its first contact on the way (docs/dlca.md) */
  double (*turn)(void *ctx, agglo_ed *e, int32_t c, double t, double axis[3]);
  /* optional (NULL: flights one event each): per cluster, the counter of its next random draw,
     each draw keyed by the cluster and that counter; the engine may then draw a lone cluster's
     flights ahead as one event and rewind the counter to replay them (grouped flights) */
  uint64_t *draws;
} agglo_ed_motion;

struct agglo_ed {
  size_t n;
  int dim;
  double r_max, r_mean;
  double window;        /* step: the fastest cluster moves window r_max (unless step_time) */
  double step_time;     /* > 0: every step lasts this long instead (set before a step) */
  double t_until;       /* the next step ends here at the latest (agglo_ed_until) */
  double margin;        /* the largest margin of a cluster (the grid's reach) */
  double margin_min;    /* > 0: a small cluster's margin is the room it has at its rebuild, at
                           least this (ballistic_event_driven.c); 0: every margin is `margin` */
  size_t stop_clusters; /* finished when at most this many clusters are left (0: never) */
  double t_stop;        /* finished at this time (INFINITY: never) */
  agglo_ed_motion motion;
  /* clusters, named by a member's storage index */
  int32_t *cl, *next_mem, *head, *tail;
  agglo_ed_cluster *cluster;       /* per cluster: its motion, build and counters */
  double *ext, *M;               /* per cluster: extents (6), mass */
  double *turned;                /* per cluster (motion.turn): how far its turns may have moved
                                    its members since its build, counted with its displacement */
  double *G;                     /* per cluster (motion.turn): its centre of mass in its frame
                                    (3), kept from its parts' at each merge, not summed anew (a
                                    sum's rounding would depend on the members' order) */
  double *turn_v;                /* per particle (motion.turn): its position from its cluster's
                                    centre of mass before a turn */
  double *p;                     /* per particle: position relative to its cluster offset */
  size_t n_clusters;
  double t;
  uint64_t stamps;               /* build stamps given so far */
  double *xb;                    /* per particle: position at its cluster's build */
  size_t *pcap;                  /* per cluster: room in its list of candidate pairs */
  double slack;                  /* round-off allowance on the gaps (lengths) */
  int built;                     /* 0: builds, pairs and calendar to make at the next step */
  agglo_ed_calendar cal;         /* the events to come (ballistic_calendar.h) */
  /* cell grid of the build positions: per-cell doubly linked lists */
  int nc[3];
  double w[3];
  size_t ncells;
  int32_t *chead, *cnext, *cprev, *cell_of;
  uint64_t *occupied;            /* per cell a bit: its list is not empty */
  /* grouped flights (motion.draws, group_cap > 0; ballistic_event_driven.c): a cluster with no
     candidate pair flies its next flights as one event; per cluster 1 while grouped, the flights
     it passed silently, and the flight it was on when grouped (offset 3, velocity 3, reference
     time, end) with its draw counter, from which a burst replays them */
  int group_cap;                 /* at most this many flights in a group (0: grouping off) */
  uint8_t *grouped;
  int32_t *silent;
  double *gstart;
  uint64_t *gdraws;
  /* a scan by cell (find_pairs_by_cell): per cell, the last scan that gathered around it and
     that read it; per particle, the last that scanned it; the particles of other clusters found */
  uint32_t *cmark, *nmark, *pmark, mark;
  int32_t *found;
  size_t fcap;
  agglo_ed_near *near;           /* find_pairs_room's particles near the cluster */
  size_t near_cap;
  /* the clusters alive (agglo_ed_step's fastest), a list that may still hold dead ones */
  int32_t *alive;
  size_t nalive;
  double t_end;                  /* end of the current step */
  agglo_ed_event cur;            /* the event being processed (order of ties at a burst) */
  /* statistics */
  int64_t events, stale, merges, wall_hits, rebuilds, flights, bounces, turns;
  int64_t groups, bursts;        /* groups made, groups burst before their end */
};

/* The engine over system s from its positions and velocities (velocities from motion.flight when
   given); window_key names the setting of window in messages. */
int agglo_ed_create(agglo_ed **out, const agglo_system *s, double window, const char *window_key,
                    size_t stop_clusters, double t_stop, const agglo_ed_motion *motion, char *err,
                    size_t errlen);
void agglo_ed_destroy(void *state);
/* Events up to the end of one step (or the stop), then the state at e->t into s. */
int agglo_ed_step(void *state, agglo_system *s, agglo_step_info *info, char *err, size_t errlen);
void agglo_ed_until(void *state, double t);
double agglo_ed_contact_gap(const void *state);
int agglo_ed_labels(const void *state, agglo_system *s, size_t *n_clusters, size_t *max_size);
/* A start from a file's clusters (agglo_model.join): the clusters of particles i and j become
   one, placed by the pair's minimum image (with a motion, the joined cluster starts a new flight). */
int agglo_ed_join(void *state, const agglo_system *s, int32_t i, int32_t j, int touching);
/* The grid's reach (the largest margin) widened to margin, within what a periodic box allows:
   larger clusters rebuild less often. The builds and the calendar are made anew at the next
   step, as after a load: no event changes. -1: out of memory (the engine is then unusable). */
int agglo_ed_widen(agglo_ed *e, const agglo_system *s, double margin);
/* Grouped flights at most cap per group (0: off; needs motion.draws). */
int agglo_ed_group_flights(agglo_ed *e, int cap);
/* Restart: the clusters exactly as they are in memory (ballistic_event_driven.c) */
int agglo_ed_save(const void *state, FILE *f);
int agglo_ed_load(void *state, const agglo_system *s, FILE *f, char *err, size_t errlen);

#endif
