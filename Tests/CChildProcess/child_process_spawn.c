#define _GNU_SOURCE
#include "child_process_spawn.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <unistd.h>

int bgw_pipe_cloexec(int fds[2]) { return pipe2(fds, O_CLOEXEC); }

int bgw_spawn(pid_t *pid, const char *path, char *const argv[], char *const envp[], int stdin_fd, int stdout_fd,
              int stderr_fd) {
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attributes;
    int result = posix_spawn_file_actions_init(&actions);
    if (result != 0) return result;
    result = posix_spawnattr_init(&attributes);
    if (result != 0) {
        posix_spawn_file_actions_destroy(&actions);
        return result;
    }
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    if (result == 0) result = posix_spawn_file_actions_adddup2(&actions, stdin_fd, 0);
    if (result == 0) result = posix_spawn_file_actions_adddup2(&actions, stdout_fd, 1);
    if (result == 0) result = posix_spawn_file_actions_adddup2(&actions, stderr_fd, 2);
    if (result == 0) result = posix_spawn_file_actions_addclosefrom_np(&actions, 3);
    // Its own process group, no blocked signals and default dispositions, whatever the test runner set.
    if (result == 0) result = posix_spawnattr_setpgroup(&attributes, 0);
    if (result == 0) result = posix_spawnattr_setsigmask(&attributes, &none);
    if (result == 0) result = posix_spawnattr_setsigdefault(&attributes, &all);
    if (result == 0) {
        result = posix_spawnattr_setflags(
            &attributes, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    }
    if (result == 0) result = posix_spawn(pid, path, &actions, &attributes, argv, envp);
    posix_spawnattr_destroy(&attributes);
    posix_spawn_file_actions_destroy(&actions);
    return result;
}
