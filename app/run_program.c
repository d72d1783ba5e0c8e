/* fork and exec, no shell: what a user typed reaches the program as one argument, whatever
   quotes or semicolons it holds. The child reports a failed chdir or exec through a pipe that
   exec closes, so the parent tells "cannot start" from the program's own exit status. */
#define _GNU_SOURCE /* pipe2 */
#include "run_program.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* In the child: only calls that are safe after fork in a threaded process. What failed (1:
   the log, 2: the directory, 3: the program) and errno go up the pipe. */
static void child(char *const argv[], const char *dir, int logfd, int log_stdout, int report) {
  int why[2] = {0, 0};
  if (logfd >= 0 && ((log_stdout && dup2(logfd, 1) < 0) || dup2(logfd, 2) < 0)) why[0] = 1;
  else if (dir && chdir(dir) != 0) why[0] = 2;
  else {
    execvp(argv[0], argv);
    why[0] = 3;
  }
  why[1] = errno;
  ssize_t w = write(report, why, sizeof why);
  (void)w;
  _exit(127);
}

int agglo_cli_run_program(char *const argv[], const char *dir, const char *log, int log_stdout,
                          char *msg, size_t msglen) {
  int logfd = -1, pfd[2];
  if (log && (logfd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666)) < 0) {
    snprintf(msg, msglen, "%s: cannot write: %s", log, strerror(errno));
    return -1;
  }
  if (pipe2(pfd, O_CLOEXEC) != 0) {
    snprintf(msg, msglen, "cannot start %s: %s", argv[0], strerror(errno));
    if (logfd >= 0) close(logfd);
    return -1;
  }
  fflush(NULL); /* nothing buffered here is written twice */
  pid_t pid = fork();
  if (pid == 0) child(argv, dir, logfd, log_stdout, pfd[1]);
  int fork_errno = errno;
  close(pfd[1]);
  if (logfd >= 0) close(logfd);
  if (pid < 0) {
    close(pfd[0]);
    snprintf(msg, msglen, "cannot start %s: %s", argv[0], strerror(fork_errno));
    return -1;
  }
  int why[2];
  ssize_t got;
  while ((got = read(pfd[0], why, sizeof why)) < 0 && errno == EINTR) {
  }
  close(pfd[0]);
  int status;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) {
      snprintf(msg, msglen, "%s: waitpid: %s", argv[0], strerror(errno));
      return -1;
    }
  if (got == (ssize_t)sizeof why) {
    if (why[0] == 2)
      snprintf(msg, msglen, "cannot start %s in %s: %s", argv[0], dir, strerror(why[1]));
    else
      snprintf(msg, msglen, "cannot start %s: %s", argv[0], strerror(why[1]));
    return -1;
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return 0;
  if (WIFEXITED(status))
    snprintf(msg, msglen, "%s exited with status %d", argv[0], WEXITSTATUS(status));
  else if (WIFSIGNALED(status))
    snprintf(msg, msglen, "%s was killed by signal %d", argv[0], WTERMSIG(status));
  else
    snprintf(msg, msglen, "%s ended abnormally (wait status %d)", argv[0], status);
  return -1;
}
