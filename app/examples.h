/* The shipped example scenarios (share/agglo/examples of the install; examples/ of the source
   tree for the build tree's program): app/examples.c. */
#ifndef AGGLO_APP_EXAMPLES_H
#define AGGLO_APP_EXAMPLES_H
#include <stdio.h>

/* The directory of the shipped examples, or NULL when there is none. */
const char *agglo_cli_examples_dir(void);
/* The scenario file to load for `given` (a command's SCENARIO argument): given itself when it
   exists or is a path (a missing one whose name is a shipped example's gets a hint on stderr);
   else the shipped example of that name (".ini" may be left out), said on stderr unless quiet;
   else given (its loader then names the missing file). */
const char *agglo_cli_scenario(const char *cmd, const char *given, int quiet);
/* `agglo list`'s part: the directory and each example with a line on it. 1 when none found. */
int agglo_cli_list_examples(FILE *f);

#endif
