#ifndef BROKERGATEWAY_CHILD_PROCESS_SPAWN_H
#define BROKERGATEWAY_CHILD_PROCESS_SPAWN_H

#include <sys/types.h>

/// Starts `path` with `argv` and `envp`, its standard input, output and error on the three descriptors given, in a
/// process group of its own, with every other descriptor closed in the child (`posix_spawn_file_actions_addclosefrom_np`,
/// one action instead of one per open descriptor). Returns 0 or an errno value.
int bgw_spawn(pid_t *pid, const char *path, char *const argv[], char *const envp[], int stdin_fd, int stdout_fd,
              int stderr_fd);

/// `pipe2(fds, O_CLOEXEC)`, which Swift's Glibc module does not import.
int bgw_pipe_cloexec(int fds[2]);

#endif
