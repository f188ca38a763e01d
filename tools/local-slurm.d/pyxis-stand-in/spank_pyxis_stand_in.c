/*
 * tuneplane-slurm-pyxis-stand-in: a SPANK plugin that stands in for NVIDIA's Pyxis on the local
 * Slurm (tools/local-slurm up builds it against Debian's libslurm-dev and names it in the
 * cluster's plugstack.conf; Debian has no Pyxis package). It does what Pyxis does wherever the
 * values we pass go through it, read from Pyxis's public source at the releases sites run,
 * 0.19.0 to 0.24.0 (args.c, common.c, config.c, enroot.c, pyxis_slurmstepd.c, pyxis_srun.c,
 * pyxis_dispatch.c); it calls `enroot` (the real one, or local-slurm's stand-in) as Pyxis does.
 *
 *   - The options srun, sbatch and salloc accept are Pyxis's own, registered under the plugin
 *     name "pyxis" with Pyxis's argument names and help; an option a release does not have
 *     (--container-entrypoint-log before 0.20, --container-unshare before 0.24) is refused by
 *     srun as with that release. Each option is checked as Pyxis checks it, with its messages
 *     ("pyxis: --container-mounts: invalid format: ...", "... specified multiple times"), and
 *     from 0.21 the PYXIS_CONTAINER_* variables supply the options not given.
 *   - --container-mounts is split on ',' into SRC[:DST[:FLAGS]] entries, FLAGS joined with '+'
 *     become ','; a source starting with '.' or '/' gets "x-create=auto,rbind", "tmpfs"
 *     "x-create=dir", "umount" "x-detach", anything else is refused; a target must start with '.'
 *     or '/'; a repeated entry counts once.
 *   - In each step (slurmstepd), the first task creates the container (`enroot create --name
 *     pyxis_JOB.STEP IMAGE`) and writes the configuration file /tmp/.enroot_config_XXXXXX:
 *     mounts() { echo "SRC DST FLAGS" ... } (0.24 escapes space, tab, newline and backslash of
 *     SRC and DST as \040, \011, \012, \134 (fstab_escape); 0.19 to 0.23 write them as they
 *     are), hooks() writing `exec "$@"` to the root's /etc/rc.local unless the entrypoint runs,
 *     environ() for --container-env; from 0.24 an absolute source that does not exist is
 *     refused first. It runs `enroot start --conf FILE pyxis_JOB.STEP sh -c 'kill -STOP $$ ;
 *     exit 0'` as the job user, its environment the job's but PATH, LD_LIBRARY_PATH, LD_PRELOAD,
 *     SLURM_PROCID, SLURM_LOCALID, SLURM_TASK_PID, PMIX_RANK, PMI_FD and Enroot's path and network
 *     settings (Pyxis's denylist), PATH slurmstepd's own, and ENROOT_MOUNT_HOME,
 *     ENROOT_REMAP_ROOT, ENROOT_ROOTFS_WRITABLE, ENROOT_UNSHARE_* as the options say.
 *   - Every task then joins the stopped container's user, cgroup, mount (and IPC, UTS, network
 *     when they differ) namespaces with setns(2), as Pyxis does in task_init, takes the
 *     container process's root and working directory by descriptor (the same place setns gives
 *     Pyxis, and the right one where the node itself runs in a chroot), goes to
 *     --container-workdir or else to the container's working directory, and takes the
 *     container's environment over the job's (LANG, LANGUAGE and LC_ALL dropped unless named by
 *     --container-env, whose names keep the job's value; RANK and LOCAL_RANK when the job has
 *     PYTORCH_VERSION); slurmstepd then runs the task's command there. The last task to join
 *     lets the container's process go on; the last to end removes the container
 *     (`enroot remove -f`).
 *   Releases: the plugstack.conf argument release=0.19 ... release=0.24 (default 0.24), or the
 *   job's TP_PYXIS_STAND_IN_RELEASE, which wins. Pyxis's own plugstack arguments are read as
 *   Pyxis reads them (runtime_path, execute_entrypoint, container_scope, sbatch_support;
 *   use_enroot_load, importer, use_squashfuse only off).
 *
 * What it does not do is refused with status 254 (srun's, or the task's; srun's own status for a
 * bad option is 255), not faked: --container-name, --container-save, images that are not
 * squashfs paths (enroot import), containers in the batch step (sbatch --container-image),
 * Pyxis's importer, enroot load and squashfuse modes; and so is what local-slurm's enroot
 * stand-in refuses (its status 255).
 * Not done at all: Pyxis's seccomp filter (it fakes chown and friends for unprivileged users),
 * the log of how long the import took, the slurmd and epilog cleanup of named containers.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <slurm/slurm.h>
#include <slurm/spank.h>

SPANK_PLUGIN(pyxis, 1);

#define STAND_IN "pyxis stand-in"
#define NOT_IMPLEMENTED 254
#define ENROOT_STAND_IN_NOT_IMPLEMENTED 255

/* The parts, in this order: each uses what the ones before it define. */
#include "options.c"
#include "step.c"
#include "container.c"

/* --- SPANK entry points ------------------------------------------------------------------ */

static int release_from_environment(spank_t sp)
{
	char buf[32];
	const char *value = job_getenv(sp, "TP_PYXIS_STAND_IN_RELEASE", buf, sizeof(buf));

	return value == NULL ? 0 : set_release(value, "TP_PYXIS_STAND_IN_RELEASE");
}

int slurm_spank_init(spank_t sp, int ac, char **av)
{
	spank_context_t ctx = spank_context();

	if (ctx != S_CTX_LOCAL && ctx != S_CTX_ALLOCATOR && ctx != S_CTX_REMOTE)
		return 0;
	if (parse_config(ac, av) < 0) {
		slurm_error("pyxis: failed to parse configuration");
		return -1;
	}
	if (release_from_environment(sp) < 0)
		return -1;
	return register_options(sp);
}

/* In srun and sbatch: refuse at once what a step could not run. */
static int local_post_opt(spank_t sp)
{
	options_from_environment(sp);
	if (container_enabled() && g_unimplemented[0] != '\0') {
		slurm_error(STAND_IN ": %s is not implemented by this stand-in", g_unimplemented);
		exit(NOT_IMPLEMENTED);
	}
	return 0;
}

int slurm_spank_init_post_opt(spank_t sp, int ac, char **av)
{
	spank_context_t ctx = spank_context();

	if (ctx == S_CTX_LOCAL || ctx == S_CTX_ALLOCATOR)
		return local_post_opt(sp);
	if (ctx != S_CTX_REMOTE)
		return 0;
	options_from_environment(sp);
	if (!container_enabled())
		return 0;
	g_step.enabled = true;
	return step_info(sp);
}

int slurm_spank_user_init(spank_t sp, int ac, char **av)
{
	pthread_mutexattr_t attr;
	int rv = -1;

	if (!g_step.enabled)
		return 0;
	g_shared = mmap(NULL, sizeof(*g_shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (g_shared == MAP_FAILED) {
		g_shared = NULL;
		goto out;
	}
	pthread_mutexattr_init(&attr);
	pthread_mutexattr_setpshared(&attr, PTHREAD_PROCESS_SHARED);
	pthread_mutexattr_setrobust(&attr, PTHREAD_MUTEX_ROBUST);
	pthread_mutex_init(&g_shared->mutex, &attr);
	pthread_mutexattr_destroy(&attr);
	if (copy_job_env(sp) < 0)
		goto out;
	if (g_step.stepid == SLURM_BATCH_SCRIPT)
		not_implemented("a container for the batch step (sbatch --container-image)");
	if (g_args.image != NULL && strspn(g_args.image, "./") == 0)
		not_implemented("an image that is not a squashfs file (enroot import of a registry image)");
	if ((g_config.scope_job ? asprintf(&g_step.name, "pyxis_%u_%u.%u", g_step.jobid, g_step.jobid, g_step.stepid)
				: asprintf(&g_step.name, "pyxis_%u.%u", g_step.jobid, g_step.stepid)) < 0) {
		g_step.name = NULL;
		goto out;
	}
	rv = 0;
out:
	/* As Pyxis: an error here would not reach srun; task_init reports it. */
	g_step.user_init_rv = rv;
	return 0;
}

int slurm_spank_task_init(spank_t sp, int ac, char **av)
{
	if (!g_step.enabled)
		return 0;
	if (g_unimplemented[0] != '\0') {
		slurm_error(STAND_IN ": %s is not implemented by this stand-in", g_unimplemented);
		_exit(NOT_IMPLEMENTED);
	}
	if (g_step.user_init_rv != 0)
		return g_step.user_init_rv;
	if (copy_job_env(sp) < 0 || start_once() < 0 || join_container(sp, g_shared->pid) < 0)
		return -1;
	/* The last task to join lets the container's process go on. */
	if (atomic_fetch_add(&g_shared->started_tasks, 1) + 1 == g_step.local_tasks) {
		if (kill(g_shared->pid, SIGCONT) < 0) {
			slurm_error("pyxis: couldn't send SIGCONT to container process: %s", strerror(errno));
			return -1;
		}
	}
	return 0;
}

int slurm_spank_task_exit(spank_t sp, int ac, char **av)
{
	if (!g_step.enabled || g_shared == NULL || g_step.name == NULL)
		return 0;
	if (atomic_fetch_add(&g_shared->completed_tasks, 1) + 1 == g_step.local_tasks) {
		char *remove[] = { "enroot", "remove", "-f", g_step.name, NULL };
		slurm_info("pyxis: removing container filesystem: %s", g_step.name);
		if (enroot_run(remove) < 0)
			slurm_info("pyxis: failed to remove container filesystem: %s", g_step.name);
	}
	return 0;
}

int slurm_spank_exit(spank_t sp, int ac, char **av)
{
	free(g_args.image);
	for (size_t i = 0; i < g_args.mounts_len; ++i) {
		free(g_args.mounts[i].source);
		free(g_args.mounts[i].target);
		free(g_args.mounts[i].flags);
	}
	free(g_args.mounts);
	free(g_args.workdir);
	free(g_args.container_name);
	free(g_args.container_save);
	for (size_t i = 0; i < g_args.env_vars_len; ++i)
		free(g_args.env_vars[i]);
	free(g_args.env_vars);
	free(g_step.gids);
	free(g_step.name);
	free_environ(g_step.environ);
	if (g_shared != NULL)
		munmap(g_shared, sizeof(*g_shared));
	return 0;
}
