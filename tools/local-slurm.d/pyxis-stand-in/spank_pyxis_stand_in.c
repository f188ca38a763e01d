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

/* --- the release followed ----------------------------------------------------------------- */

static int g_minor = 24; /* Pyxis 0.<minor> */
static char g_version[16] = "0.24.0";

static int set_release(const char *value, const char *where)
{
	char *end = NULL;
	long minor;

	if (strncmp(value, "0.", 2) != 0)
		goto bad;
	minor = strtol(value + 2, &end, 10);
	if (end == value + 2 || (*end != '\0' && strcmp(end, ".0") != 0) || minor < 19 || minor > 24)
		goto bad;
	g_minor = (int)minor;
	snprintf(g_version, sizeof(g_version), "0.%ld.0", minor);
	return 0;
bad:
	slurm_error(STAND_IN ": %s %s: not a Pyxis release this stand-in follows (0.19 to 0.24)", where, value);
	return -1;
}

/* --- the options ------------------------------------------------------------------------ */

struct mount_entry {
	char *source;
	char *target;
	char *flags;
};

static struct {
	char *image;
	struct mount_entry *mounts;
	size_t mounts_len;
	char *workdir;
	char *container_name;
	char *container_save;
	int mount_home, remap_root, entrypoint, entrypoint_log, writable;
	int unshare_net, unshare_ipc, unshare_uts;
	char **env_vars;
	size_t env_vars_len;
} g_args = { .mount_home = -1, .remap_root = -1, .entrypoint = -1, .entrypoint_log = -1, .writable = -1,
	     .unshare_net = -1, .unshare_ipc = -1, .unshare_uts = -1 };

/* What was asked that this stand-in does not implement (reported with status 254). */
static char g_unimplemented[256];

static void not_implemented(const char *what)
{
	if (g_unimplemented[0] == '\0')
		snprintf(g_unimplemented, sizeof(g_unimplemented), "%s", what);
}

static int set_once(char **slot, const char *optarg, const char *option)
{
	if (optarg == NULL || *optarg == '\0') {
		slurm_error("pyxis: %s: argument required", option);
		return -1;
	}
	/* Slurm may hand the same option over twice. */
	if (*slot != NULL) {
		if (strcmp(*slot, optarg) == 0)
			return 0;
		slurm_error("pyxis: %s specified multiple times", option);
		return -1;
	}
	*slot = strdup(optarg);
	return *slot == NULL ? -1 : 0;
}

static int opt_image(int val, const char *optarg, int remote)
{
	return set_once(&g_args.image, optarg, "--container-image");
}

static int add_mount(const char *source, const char *target, const char *flags)
{
	const char *defaults;
	struct mount_entry entry, *grown;

	if (strspn(source, "./") > 0) {
		defaults = "x-create=auto,rbind";
	} else if (strcmp(source, "tmpfs") == 0) {
		defaults = "x-create=dir";
	} else if (strcmp(source, "umount") == 0) {
		defaults = "x-detach";
	} else {
		slurm_error("pyxis: mount source must be a relative path, an absolute path, \"tmpfs\" or \"umount\"");
		return -1;
	}
	if (strspn(target, "./") == 0) {
		slurm_error("pyxis: mount target must be a relative path or an absolute path");
		return -1;
	}
	entry.source = strdup(source);
	entry.target = strdup(target);
	if (flags != NULL) {
		if (asprintf(&entry.flags, "%s,%s", defaults, flags) < 0)
			entry.flags = NULL;
	} else {
		entry.flags = strdup(defaults);
	}
	if (entry.source == NULL || entry.target == NULL || entry.flags == NULL)
		goto fail;
	for (size_t i = 0; i < g_args.mounts_len; ++i) {
		const struct mount_entry *m = &g_args.mounts[i];
		if (strcmp(m->source, source) == 0 && strcmp(m->target, target) == 0 && strcmp(m->flags, entry.flags) == 0) {
			free(entry.source);
			free(entry.target);
			free(entry.flags);
			return 0;
		}
	}
	grown = realloc(g_args.mounts, (g_args.mounts_len + 1) * sizeof(*grown));
	if (grown == NULL)
		goto fail;
	g_args.mounts = grown;
	g_args.mounts[g_args.mounts_len++] = entry;
	return 0;
fail:
	free(entry.source);
	free(entry.target);
	free(entry.flags);
	return -1;
}

/* One SRC[:DST[:FLAGS]] entry of --container-mounts. */
static int parse_mount(const char *option)
{
	char *copy = strdup(option), *rest, *src, *dst, *flags = NULL;
	int rv = -1;

	if (copy == NULL)
		return -1;
	rest = copy;
	src = strsep(&rest, ":");
	if (*src == '\0')
		goto invalid;
	dst = src;
	if (rest != NULL) {
		dst = strsep(&rest, ":");
		if (*dst == '\0')
			goto invalid;
		if (rest != NULL && *rest != '\0') {
			/* Entries are split on ',': Enroot's flag separator is written as '+'. */
			flags = rest;
			for (char *c = flags; *c != '\0'; ++c)
				if (*c == '+')
					*c = ',';
		}
	}
	rv = add_mount(src, dst, flags);
	if (rv < 0)
		slurm_error("pyxis: could not add mount entry: %s:%s", src, dst);
	free(copy);
	return rv;
invalid:
	slurm_error("pyxis: --container-mounts: invalid format: %s", option);
	free(copy);
	return -1;
}

static int opt_mounts(int val, const char *optarg, int remote)
{
	char *copy, *rest, *item;
	int rv = 0;

	if (optarg == NULL || *optarg == '\0') {
		slurm_error("pyxis: --container-mounts: argument required");
		return -1;
	}
	copy = strdup(optarg);
	if (copy == NULL)
		return -1;
	rest = copy;
	while (rv == 0 && (item = strsep(&rest, ",")) != NULL)
		rv = parse_mount(item);
	free(copy);
	return rv;
}

static int opt_workdir(int val, const char *optarg, int remote)
{
	return set_once(&g_args.workdir, optarg, "--container-workdir");
}

static int opt_name(int val, const char *optarg, int remote)
{
	const char *colon;

	if (optarg == NULL || *optarg == '\0') {
		slurm_error("pyxis: --container-name: argument required");
		return -1;
	}
	colon = strchr(optarg, ':');
	if (colon == optarg) {
		slurm_error("pyxis: --container-name: empty name");
		return -1;
	}
	if (colon != NULL && colon[1] != '\0' && strcmp(colon + 1, "auto") != 0 && strcmp(colon + 1, "create") != 0 &&
	    strcmp(colon + 1, "exec") != 0 && strcmp(colon + 1, "no_exec") != 0) {
		slurm_error("pyxis: --container-name: flag must be \"auto\", \"create\", \"exec\" or \"no_exec\"");
		return -1;
	}
	not_implemented("--container-name");
	return set_once(&g_args.container_name, optarg, "--container-name");
}

static int opt_save(int val, const char *optarg, int remote)
{
	if (optarg != NULL && *optarg != '\0' && g_minor >= 21 && optarg[strlen(optarg) - 1] == '/') {
		slurm_error("pyxis: --container-save: target is a directory");
		return -1;
	}
	not_implemented("--container-save");
	return set_once(&g_args.container_save, optarg, "--container-save");
}

static int set_flag(int *slot, int val, const char *both)
{
	if (*slot != -1 && *slot != val && both != NULL) {
		slurm_error("pyxis: both %s were specified", both);
		return -1;
	}
	*slot = val;
	return 0;
}

static int opt_mount_home(int val, const char *optarg, int remote)
{
	return set_flag(&g_args.mount_home, val, "--container-mount-home and --no-container-mount-home");
}

static int opt_remap_root(int val, const char *optarg, int remote)
{
	return set_flag(&g_args.remap_root, val, "--container-remap-root and --no-container-remap-root");
}

static int opt_entrypoint(int val, const char *optarg, int remote)
{
	return set_flag(&g_args.entrypoint, val, "--container-entrypoint and --no-container-entrypoint");
}

static int opt_entrypoint_log(int val, const char *optarg, int remote)
{
	return set_flag(&g_args.entrypoint_log, val, NULL);
}

static int opt_writable(int val, const char *optarg, int remote)
{
	return set_flag(&g_args.writable, val, "--container-writable and --container-readonly");
}

/* Calls each(ITEM) for the ','-separated items of optarg; an empty item is `empty`'s error. */
static int for_each_item(const char *optarg, const char *option, const char *empty, int (*each)(const char *))
{
	char *copy, *rest, *item;
	int rv = 0;

	if (optarg == NULL || *optarg == '\0') {
		slurm_error("pyxis: %s: argument required", option);
		return -1;
	}
	copy = strdup(optarg);
	if (copy == NULL)
		return -1;
	rest = copy;
	while (rv == 0 && (item = strsep(&rest, ",")) != NULL) {
		if (*item == '\0') {
			slurm_error(empty, optarg);
			rv = -1;
		} else {
			rv = each(item);
		}
	}
	free(copy);
	return rv;
}

static int add_env_name(const char *name)
{
	char **grown;

	for (size_t i = 0; i < g_args.env_vars_len; ++i)
		if (strcmp(g_args.env_vars[i], name) == 0)
			return 0;
	grown = realloc(g_args.env_vars, (g_args.env_vars_len + 1) * sizeof(*grown));
	if (grown == NULL)
		return -1;
	g_args.env_vars = grown;
	g_args.env_vars[g_args.env_vars_len] = strdup(name);
	return g_args.env_vars[g_args.env_vars_len++] == NULL ? -1 : 0;
}

static int opt_env(int val, const char *optarg, int remote)
{
	return for_each_item(optarg, "--container-env", "pyxis: --container-env: invalid format: %s", add_env_name);
}

static int add_namespace(const char *name)
{
	if (strcmp(name, "net") == 0)
		g_args.unshare_net = 1;
	else if (strcmp(name, "ipc") == 0)
		g_args.unshare_ipc = 1;
	else if (strcmp(name, "uts") == 0)
		g_args.unshare_uts = 1;
	else {
		slurm_error("pyxis: --container-unshare: unknown namespace '%s'", name);
		return -1;
	}
	return 0;
}

static int opt_unshare(int val, const char *optarg, int remote)
{
	return for_each_item(optarg, "--container-unshare", "pyxis: --container-unshare: empty namespace argument",
			     add_namespace);
}

/* Pyxis's table: name, argument, help, has_arg, val, callback, the first release that has it. */
static const struct {
	struct spank_option option;
	int since;
} g_options[] = {
	{ { "container-image", "[USER@][REGISTRY#]IMAGE[:TAG]|PATH",
	    "[pyxis] the image to use for the container filesystem. Can be either a docker image given as an enroot URI, "
	    "or a path to a squashfs file on the remote host filesystem.", 1, 0, opt_image }, 19 },
	{ { "container-mounts", "SRC:DST[:FLAGS][,SRC:DST...]",
	    "[pyxis] bind mount[s] inside the container. Mount flags are separated with \"+\", e.g. \"ro+rprivate\"",
	    1, 0, opt_mounts }, 19 },
	{ { "container-workdir", "PATH", "[pyxis] working directory inside the container", 1, 0, opt_workdir }, 19 },
	{ { "container-name", "NAME",
	    "[pyxis] name to use for saving and loading the container on the host. Unnamed containers are removed after "
	    "the slurm task is complete; named containers are not. If a container with this name already exists, the "
	    "existing container is used and the import is skipped.", 1, 0, opt_name }, 19 },
	{ { "container-save", "PATH",
	    "[pyxis] Save the container state to a squashfs file on the remote host filesystem.", 1, 0, opt_save }, 19 },
	{ { "container-mount-home", NULL,
	    "[pyxis] bind mount the user's home directory. System-level enroot settings might cause this directory to be "
	    "already-mounted.", 0, 1, opt_mount_home }, 19 },
	{ { "no-container-mount-home", NULL, "[pyxis] do not bind mount the user's home directory", 0, 0,
	    opt_mount_home }, 19 },
	{ { "container-remap-root", NULL,
	    "[pyxis] ask to be remapped to root inside the container. Does not grant elevated system permissions, "
	    "despite appearances.", 0, 1, opt_remap_root }, 19 },
	{ { "no-container-remap-root", NULL, "[pyxis] do not remap to root inside the container", 0, 0,
	    opt_remap_root }, 19 },
	{ { "container-entrypoint", NULL, "[pyxis] execute the entrypoint from the container image", 0, 1,
	    opt_entrypoint }, 19 },
	{ { "no-container-entrypoint", NULL, "[pyxis] do not execute the entrypoint from the container image", 0, 0,
	    opt_entrypoint }, 19 },
	{ { "container-entrypoint-log", NULL, "[pyxis] print the output of the entrypoint script", 0, 1,
	    opt_entrypoint_log }, 20 },
	{ { "container-writable", NULL, "[pyxis] make the container filesystem writable", 0, 1, opt_writable }, 19 },
	{ { "container-readonly", NULL, "[pyxis] make the container filesystem read-only", 0, 0, opt_writable }, 19 },
	{ { "container-env", "NAME[,NAME...]",
	    "[pyxis] names of environment variables to override with the host environment and set at the entrypoint. "
	    "By default, all exported host environment variables are set in the container after the entrypoint is run, "
	    "but their existing values in the image take precedence; the variables specified with this flag are "
	    "preserved from the host and set before the entrypoint runs", 1, 0, opt_env }, 19 },
	{ { "container-unshare", "NS[,NS...]", "[pyxis] create new namespaces for the container. Supported: net, ipc, uts.",
	    1, 1, opt_unshare }, 24 },
};

static int register_options(spank_t sp)
{
	for (size_t i = 0; i < sizeof(g_options) / sizeof(g_options[0]); ++i) {
		if (g_options[i].since > g_minor)
			continue;
		spank_err_t rc = spank_option_register(sp, (struct spank_option *)&g_options[i].option);
		if (rc != ESPANK_SUCCESS) {
			slurm_error("pyxis: couldn't register option %s: %s", g_options[i].option.name, spank_strerror(rc));
			return -1;
		}
	}
	return 0;
}

/* A variable of the job (remote) or of the command's own environment (srun, sbatch). */
static const char *job_getenv(spank_t sp, const char *name, char *buf, size_t size)
{
	if (spank_context() == S_CTX_REMOTE)
		return spank_getenv(sp, name, buf, size) == ESPANK_SUCCESS ? buf : NULL;
	return getenv(name);
}

static int parse_bool(const char *s)
{
	if (strcmp(s, "1") == 0 || strcmp(s, "true") == 0 || (g_minor >= 21 && (strcmp(s, "yes") == 0 || strcmp(s, "y") == 0)))
		return 1;
	if (strcmp(s, "0") == 0 || strcmp(s, "false") == 0 || (g_minor >= 21 && (strcmp(s, "no") == 0 || strcmp(s, "n") == 0)))
		return 0;
	return -1;
}

/* From 0.21, PYXIS_CONTAINER_* supply the options not given on the command line. */
static void options_from_environment(spank_t sp)
{
	static const struct {
		const char *name;
		int (*callback)(int, const char *, int);
		int kind; /* 0: a value; 1: a boolean; 2: the negation of a boolean */
	} vars[] = {
		{ "PYXIS_CONTAINER_IMAGE", opt_image, 0 },	   { "PYXIS_CONTAINER_MOUNTS", opt_mounts, 0 },
		{ "PYXIS_CONTAINER_WORKDIR", opt_workdir, 0 },	   { "PYXIS_CONTAINER_NAME", opt_name, 0 },
		{ "PYXIS_CONTAINER_SAVE", opt_save, 0 },	   { "PYXIS_CONTAINER_MOUNT_HOME", opt_mount_home, 1 },
		{ "PYXIS_CONTAINER_REMAP_ROOT", opt_remap_root, 1 }, { "PYXIS_CONTAINER_ENTRYPOINT", opt_entrypoint, 1 },
		{ "PYXIS_CONTAINER_ENTRYPOINT_LOG", opt_entrypoint_log, 1 },
		{ "PYXIS_CONTAINER_WRITABLE", opt_writable, 1 },   { "PYXIS_CONTAINER_READONLY", opt_writable, 2 },
		{ "PYXIS_CONTAINER_ENV", opt_env, 0 },
	};
	char buf[4096];
	const char *value;

	if (g_minor < 21)
		return;
	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); ++i) {
		if ((value = job_getenv(sp, vars[i].name, buf, sizeof(buf))) == NULL)
			continue;
		int (*cb)(int, const char *, int) = vars[i].callback;
		bool given = (cb == opt_image && g_args.image) || (cb == opt_mounts && g_args.mounts_len) ||
			     (cb == opt_workdir && g_args.workdir) || (cb == opt_name && g_args.container_name) ||
			     (cb == opt_save && g_args.container_save) || (cb == opt_mount_home && g_args.mount_home != -1) ||
			     (cb == opt_remap_root && g_args.remap_root != -1) ||
			     (cb == opt_entrypoint && g_args.entrypoint != -1) ||
			     (cb == opt_entrypoint_log && g_args.entrypoint_log != -1) ||
			     (cb == opt_writable && g_args.writable != -1) || (cb == opt_env && g_args.env_vars_len);
		if (given)
			continue;
		if (vars[i].kind == 0) {
			cb(0, value, 0);
		} else {
			int b = parse_bool(value);
			if (b >= 0)
				cb(vars[i].kind == 2 ? !b : b, NULL, 0);
		}
	}
	if (g_minor >= 24 && (value = job_getenv(sp, "PYXIS_CONTAINER_UNSHARE", buf, sizeof(buf))) != NULL &&
	    g_args.unshare_net == -1 && g_args.unshare_ipc == -1 && g_args.unshare_uts == -1)
		opt_unshare(1, value, 0);
}

/* Whether the step runs in a container; the options that need one are reported otherwise. */
static bool container_enabled(void)
{
	const char *why = "because neither --container-image nor --container-name is set";

	if (g_args.image != NULL || g_args.container_name != NULL)
		return true;
	if (g_args.mounts_len > 0)
		slurm_error("pyxis: ignoring --container-mounts %s", why);
	if (g_args.workdir != NULL)
		slurm_error("pyxis: ignoring --container-workdir %s", why);
	if (g_args.container_save != NULL && g_minor >= 21)
		slurm_error("pyxis: ignoring --container-save %s", why);
	if (g_args.mount_home != -1)
		slurm_error("pyxis: ignoring --[no-]container-mount-home %s", why);
	if (g_args.remap_root != -1)
		slurm_error("pyxis: ignoring --[no-]container-remap-root %s", why);
	if (g_args.entrypoint != -1)
		slurm_error("pyxis: ignoring --[no-]container-entrypoint %s", why);
	if (g_minor >= 21) {
		if (g_args.entrypoint_log != -1)
			slurm_error("pyxis: ignoring --container-entrypoint-log %s", why);
		if (g_args.writable == 0)
			slurm_error("pyxis: ignoring --container-readonly %s", why);
		if (g_args.writable == 1)
			slurm_error("pyxis: ignoring --container-writable %s", why);
	}
	return false;
}

/* --- plugstack.conf arguments (config.c) --------------------------------------------------- */

static struct {
	char runtime_path[4096];
	bool execute_entrypoint;
	bool scope_job;
} g_config;

static int parse_config(int ac, char **av)
{
	snprintf(g_config.runtime_path, sizeof(g_config.runtime_path), "/run/pyxis");
	g_config.execute_entrypoint = false;
	g_config.scope_job = false;
	for (int i = 0; i < ac; ++i) {
		const char *eq = strchr(av[i], '=');
		const char *value = eq ? eq + 1 : "";
		size_t len = eq ? (size_t)(eq - av[i]) : strlen(av[i]);
		int b = parse_bool(value);

		if (strncmp(av[i], "release", len) == 0 && len == 7) {
			if (set_release(value, "release") < 0)
				return -1;
		} else if (strncmp(av[i], "runtime_path", len) == 0 && len == 12) {
			snprintf(g_config.runtime_path, sizeof(g_config.runtime_path), "%s", value);
		} else if (strncmp(av[i], "execute_entrypoint", len) == 0 && len == 18 && b >= 0) {
			g_config.execute_entrypoint = b;
		} else if (strncmp(av[i], "container_scope", len) == 0 && len == 15 &&
			   (strcmp(value, "job") == 0 || strcmp(value, "global") == 0)) {
			g_config.scope_job = strcmp(value, "job") == 0;
		} else if (strncmp(av[i], "sbatch_support", len) == 0 && len == 14 && b >= 0) {
		} else if (((strncmp(av[i], "use_enroot_load", len) == 0 && len == 15) ||
			    (strncmp(av[i], "use_squashfuse", len) == 0 && len == 14)) && b == 0 && g_minor >= 21) {
		} else if (((strncmp(av[i], "use_enroot_load", len) == 0 && len == 15) ||
			    (strncmp(av[i], "use_squashfuse", len) == 0 && len == 14) ||
			    (strncmp(av[i], "importer", len) == 0 && len == 8 && *value != '\0')) && g_minor >= 21) {
			not_implemented(av[i]);
		} else {
			slurm_error("pyxis: unknown configuration option: %s", av[i]);
			return -1;
		}
	}
	return 0;
}

/* --- the step: job, container, shared state ------------------------------------------------ */

static struct {
	bool enabled;
	uid_t uid;
	gid_t gid;
	gid_t *gids;
	int ngids;
	bool privileged;
	uint32_t jobid, stepid, local_tasks;
	char **environ;
	char *name;
	int user_init_rv;
} g_step = { .uid = (uid_t)-1, .gid = (gid_t)-1 };

/* Shared by the step's tasks (forked from one slurmstepd): who starts and who stops. */
struct shared {
	pthread_mutex_t mutex;
	atomic_uint init_tasks, started_tasks, completed_tasks;
	pid_t pid;
};
static struct shared *g_shared;

static int step_info(spank_t sp)
{
	gid_t *gids = NULL;
	int ngids = 0;
	char superuser[16] = "";

	if (spank_get_item(sp, S_JOB_UID, &g_step.uid) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_JOB_GID, &g_step.gid) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_JOB_SUPPLEMENTARY_GIDS, &gids, &ngids) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_JOB_ID, &g_step.jobid) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_JOB_STEPID, &g_step.stepid) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_JOB_LOCAL_TASK_COUNT, &g_step.local_tasks) != ESPANK_SUCCESS) {
		slurm_error("pyxis: couldn't get the job's identity, ids and task count");
		return -1;
	}
	if (ngids > 0 && gids != NULL) {
		g_step.gids = calloc((size_t)ngids, sizeof(gid_t));
		if (g_step.gids == NULL)
			return -1;
		memcpy(g_step.gids, gids, (size_t)ngids * sizeof(gid_t));
		g_step.ngids = ngids;
	}
	if (spank_getenv(sp, "ENROOT_ALLOW_SUPERUSER", superuser, sizeof(superuser)) == ESPANK_SUCCESS && g_step.uid == 0 &&
	    strcasecmp(superuser, "no") != 0 && strcasecmp(superuser, "false") != 0 && strcasecmp(superuser, "n") != 0 &&
	    strcasecmp(superuser, "f") != 0)
		g_step.privileged = true;
	return 0;
}

static void free_environ(char **env)
{
	for (size_t i = 0; env != NULL && env[i] != NULL; ++i)
		free(env[i]);
	free(env);
}

/* A copy of the task's environment as slurmstepd will hand it to the program. */
static int copy_job_env(spank_t sp)
{
	char **env = NULL, **copy;
	size_t n = 0;

	if (spank_get_item(sp, S_JOB_ENV, &env) != ESPANK_SUCCESS) {
		slurm_error("pyxis: couldn't get job environment");
		return -1;
	}
	while (env[n] != NULL)
		++n;
	copy = calloc(n + 1, sizeof(char *));
	if (copy == NULL)
		return -1;
	for (size_t i = 0; i < n; ++i)
		if ((copy[i] = strdup(env[i])) == NULL) {
			free_environ(copy);
			return -1;
		}
	free_environ(g_step.environ);
	g_step.environ = copy;
	return 0;
}

/* --- running enroot (enroot.c) ------------------------------------------------------------ */

/* Pyxis's denylist: what the job's environment may not hand to enroot. */
static bool denied_for_enroot(const char *entry)
{
	static const char *const names[] = {
		"PATH", "LD_LIBRARY_PATH", "LD_PRELOAD", "SLURM_PROCID", "SLURM_LOCALID", "SLURM_TASK_PID", "PMIX_RANK",
		"PMI_FD", "ENROOT_LIBRARY_PATH", "ENROOT_SYSCONF_PATH", "ENROOT_RUNTIME_PATH", "ENROOT_CACHE_PATH",
		"ENROOT_DATA_PATH", "ENROOT_TEMP_PATH", "ENROOT_ZSTD_OPTIONS", "ENROOT_TRANSFER_RETRIES",
		"ENROOT_CONNECT_TIMEOUT", "ENROOT_MAX_CONNECTIONS", "ENROOT_ALLOW_HTTP", NULL
	};
	size_t len = strcspn(entry, "=");

	for (size_t i = 0; names[i] != NULL; ++i)
		if (strlen(names[i]) == len && strncmp(entry, names[i], len) == 0)
			return true;
	/* Until 0.20 the denylist also held ENROOT_TRANSFER_TIMEOUT. */
	return g_minor <= 20 && len == 23 && strncmp(entry, "ENROOT_TRANSFER_TIMEOUT", len) == 0;
}

static void set_tristate(const char *name, int value)
{
	if (value == 0)
		setenv(name, "n", 1);
	else if (value == 1)
		setenv(name, "y", 1);
}

/* In the child, before exec: enroot's environment (enroot_set_env). */
static int enroot_environment(void)
{
	char *path = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
	char number[16];

	if (clearenv() != 0)
		return -1;
	if (path != NULL)
		setenv("PATH", path, 1);
	free(path);
	for (size_t i = 0; g_step.environ != NULL && g_step.environ[i] != NULL; ++i)
		if (!denied_for_enroot(g_step.environ[i]) && strchr(g_step.environ[i], '=') != NULL)
			putenv(g_step.environ[i]);
	snprintf(number, sizeof(number), "%u", (unsigned)g_step.uid);
	setenv("SLURM_JOB_UID", number, 1);
	snprintf(number, sizeof(number), "%u", (unsigned)g_step.gid);
	setenv("SLURM_JOB_GID", number, 1);
	set_tristate("ENROOT_MOUNT_HOME", g_args.mount_home);
	set_tristate("ENROOT_REMAP_ROOT", g_args.remap_root);
	set_tristate("ENROOT_ROOTFS_WRITABLE", g_args.writable);
	if (g_args.unshare_net == 1)
		setenv("ENROOT_UNSHARE_NET", "y", 1);
	if (g_args.unshare_ipc == 1)
		setenv("ENROOT_UNSHARE_IPC", "y", 1);
	if (g_args.unshare_uts == 1)
		setenv("ENROOT_UNSHARE_UTS", "y", 1);
	setenv("PYXIS_RUNTIME_PATH", g_config.runtime_path, 1);
	setenv("PYXIS_VERSION", g_version, 1);
	return 0;
}

/* Starts `enroot ARGV...` as the job user; its output goes to *log (a file read on failure). */
static pid_t enroot_spawn(char *const argv[], FILE **log)
{
	pid_t pid;
	int fd;

	*log = tmpfile();
	if (*log == NULL) {
		slurm_error("pyxis: couldn't create the enroot log: %s", strerror(errno));
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		slurm_error("pyxis: fork error: %s", strerror(errno));
		return -1;
	}
	if (pid > 0)
		return pid;
	fd = open("/dev/null", O_RDWR);
	if (fd < 0 || dup2(fd, STDIN_FILENO) < 0 || dup2(fileno(*log), STDOUT_FILENO) < 0 ||
	    dup2(fileno(*log), STDERR_FILENO) < 0)
		_exit(EXIT_FAILURE);
	for (int other = STDERR_FILENO + 1; other < 1024; ++other)
		close(other);
	if (geteuid() == 0 && setgroups((size_t)g_step.ngids, g_step.gids) < 0)
		_exit(EXIT_FAILURE);
	if (setregid(g_step.gid, g_step.gid) < 0 || setreuid(g_step.uid, g_step.uid) < 0)
		_exit(EXIT_FAILURE);
	if (enroot_environment() < 0)
		_exit(EXIT_FAILURE);
	execvpe("enroot", argv, environ);
	_exit(EXIT_FAILURE);
}

/* The enroot log, through slurm_error, as Pyxis prints it when a command failed. */
static void print_log(FILE *log, bool error)
{
	char line[4096];

	if (log == NULL)
		return;
	rewind(log);
	if (error)
		slurm_error("pyxis: printing enroot log file:");
	while (fgets(line, sizeof(line), log) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		if (error)
			slurm_error("pyxis:     %s", line);
		else
			slurm_spank_log("%s", line);
	}
}

static int enroot_run(char *const argv[])
{
	FILE *log = NULL;
	int status, rv = -1;
	pid_t pid = enroot_spawn(argv, &log);

	if (pid > 0) {
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
			rv = 0;
		else if (WIFEXITED(status))
			slurm_error("pyxis: child %d failed with error code: %d", pid, WEXITSTATUS(status));
		else
			slurm_error("pyxis: child %d terminated with signal %d", pid, WTERMSIG(status));
		if (rv < 0)
			print_log(log, true);
	}
	if (log != NULL)
		fclose(log);
	return rv;
}

/* --- the configuration file (enroot_create_start_config) -------------------------------------- */

/* 0.24's fstab_escape: space, tab, newline and backslash as octal escapes. */
static void write_escaped(FILE *f, const char *s)
{
	if (g_minor < 24) {
		fputs(s, f);
		return;
	}
	for (; *s != '\0'; ++s) {
		switch (*s) {
		case ' ': fputs("\\040", f); break;
		case '\t': fputs("\\011", f); break;
		case '\n': fputs("\\012", f); break;
		case '\\': fputs("\\134", f); break;
		default: fputc(*s, f);
		}
	}
}

static bool run_entrypoint(void)
{
	return g_args.entrypoint == 1 || (g_args.entrypoint == -1 && g_config.execute_entrypoint);
}

static int write_config(char path[static 64])
{
	struct stat st;
	FILE *f;
	int fd;

	if (g_minor >= 24) {
		for (size_t i = 0; i < g_args.mounts_len; ++i) {
			const char *source = g_args.mounts[i].source;
			if (source[0] == '/' && stat(source, &st) != 0 && (errno == ENOENT || errno == ENOTDIR)) {
				slurm_error("pyxis: --container-mounts: source path does not exist: %s", source);
				return -1;
			}
		}
	}
	snprintf(path, 64, "/tmp/.enroot_config_XXXXXX");
	fd = mkstemp(path);
	if (fd < 0 || (f = fdopen(fd, "w")) == NULL) {
		path[0] = '\0';
		return -1;
	}
	if (g_args.mounts_len > 0) {
		fputs("mounts() {\n", f);
		for (size_t i = 0; i < g_args.mounts_len; ++i) {
			fputs("\techo \"", f);
			write_escaped(f, g_args.mounts[i].source);
			fputc(' ', f);
			write_escaped(f, g_args.mounts[i].target);
			fprintf(f, " %s\"\n", g_args.mounts[i].flags);
		}
		fputs("}\n", f);
	}
	if (!run_entrypoint())
		fputs("hooks() {\n\techo 'exec \"$@\"' > ${ENROOT_ROOTFS}/etc/rc.local\n}\n", f);
	if (g_args.env_vars_len > 0) {
		fputs("environ() {\n", f);
		for (size_t i = 0; i < g_args.env_vars_len; ++i)
			fprintf(f, "\t[ -n \"${%1$s-}\" ] && echo \"%1$s=${%1$s}\" || :\n", g_args.env_vars[i]);
		fputs("}\n", f);
	}
	return fclose(f) == 0 ? 0 : -1;
}

/* --- starting the container and joining it ---------------------------------------------------- */

static char proc_state(pid_t pid, pid_t *parent)
{
	char path[64], buf[512], *close_paren;
	FILE *f;
	char state = '\0';
	int ppid = 0;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if ((f = fopen(path, "r")) == NULL)
		return '\0';
	if (fgets(buf, sizeof(buf), f) != NULL && (close_paren = strrchr(buf, ')')) != NULL)
		sscanf(close_paren + 1, " %c %d", &state, &ppid);
	fclose(f);
	if (parent != NULL)
		*parent = ppid;
	return state;
}

/*
 * The process that stopped itself in the container: `enroot start` itself (Enroot execs its way
 * into the container), or its child (the stand-in ends in bwrap, which waits for the container's
 * process). 0 while none has; -1 once enroot has ended.
 */
static pid_t stopped_container(pid_t enroot, int *status)
{
	pid_t got = waitpid(enroot, status, WNOHANG | WUNTRACED);
	DIR *proc;
	struct dirent *d;
	pid_t found = 0, parent;

	if (got == enroot)
		return WIFSTOPPED(*status) ? enroot : -1;
	if (got < 0 && errno != EINTR)
		return -1;
	if ((proc = opendir("/proc")) == NULL)
		return 0;
	while (found == 0 && (d = readdir(proc)) != NULL) {
		if (!isdigit((unsigned char)d->d_name[0]))
			continue;
		pid_t pid = (pid_t)atoi(d->d_name);
		if (proc_state(pid, &parent) == 'T' && parent == enroot)
			found = pid;
	}
	closedir(proc);
	return found;
}

static pid_t start_container(void)
{
	char conf[64] = "";
	char *argv[] = { "enroot", "start", "--conf", conf, g_step.name, "sh", "-c", "kill -STOP $$ ; exit 0", NULL };
	struct timespec pause = { 0, 10 * 1000 * 1000 };
	FILE *log = NULL;
	pid_t enroot, container = 0;
	int status = 0;

	slurm_info("pyxis: starting container: %s", g_step.name);
	if (write_config(conf) < 0) {
		slurm_error("pyxis: couldn't create enroot start configuration script");
		goto out;
	}
	enroot = enroot_spawn(argv, &log);
	while (enroot > 0 && (container = stopped_container(enroot, &status)) == 0)
		nanosleep(&pause, NULL);
	if (container < 0 || enroot <= 0) {
		if (enroot > 0 && WIFEXITED(status) && WEXITSTATUS(status) == ENROOT_STAND_IN_NOT_IMPLEMENTED) {
			print_log(log, true);
			_exit(NOT_IMPLEMENTED);
		}
		if (enroot > 0 && WIFEXITED(status) && WEXITSTATUS(status) != 0)
			slurm_error("pyxis: container start failed with error code: %d", WEXITSTATUS(status));
		else
			slurm_error("pyxis: container exited too soon");
		if (run_entrypoint())
			slurm_error("pyxis: if the image has an unusual entrypoint, try using --no-container-entrypoint");
		print_log(log, true);
		container = -1;
	} else if (run_entrypoint() && g_args.entrypoint_log == 1) {
		print_log(log, false);
	}
out:
	if (log != NULL)
		fclose(log);
	if (conf[0] != '\0')
		unlink(conf);
	return container;
}

/* The first task creates and starts the container; every task waits for it. */
static int start_once(void)
{
	int rc = pthread_mutex_lock(&g_shared->mutex);
	int rv = -1;

	if (rc == EOWNERDEAD) {
		pthread_mutex_consistent(&g_shared->mutex);
		slurm_error("pyxis: a previous task terminated unexpectedly during container setup");
		g_shared->pid = -1;
		goto out;
	} else if (rc != 0) {
		slurm_error("pyxis: failed to acquire container setup lock: %s", strerror(rc));
		return -1;
	}
	if (++g_shared->init_tasks == 1) {
		char *create[] = { "enroot", "create", "--name", g_step.name, g_args.image, NULL };
		slurm_info("pyxis: creating container filesystem: %s", g_step.name);
		if (enroot_run(create) < 0) {
			slurm_error("pyxis: failed to create container filesystem for image: %s", g_args.image);
			g_shared->pid = -1;
			goto out;
		}
		g_shared->pid = start_container();
	}
	if (g_shared->pid <= 0) {
		slurm_error("pyxis: container was not started successfully by another task");
		goto out;
	}
	rv = 0;
out:
	pthread_mutex_unlock(&g_shared->mutex);
	return rv;
}

/* A namespace of the container: its fd, or -1 when it is this process's own (net, ipc, uts). */
static int open_namespace(pid_t pid, const char *name, bool only_if_other, int *fd)
{
	char path[64], self[64];
	struct stat theirs, ours;

	snprintf(path, sizeof(path), "/proc/%d/ns/%s", pid, name);
	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0) {
		if (strcmp(name, "cgroup") == 0 && errno == ENOENT)
			return 0;
		slurm_error("pyxis: unable to open %s namespace file: %s", name, strerror(errno));
		return -1;
	}
	if (!only_if_other)
		return 0;
	snprintf(self, sizeof(self), "/proc/self/ns/%s", name);
	if (stat(self, &ours) == 0 && fstat(*fd, &theirs) == 0 && ours.st_dev == theirs.st_dev && ours.st_ino == theirs.st_ino) {
		close(*fd);
		*fd = -1;
	}
	return 0;
}

/* The container's environment over the task's (spank_import_container_env). */
static int import_container_env(spank_t sp, pid_t pid)
{
	static const char *const dropped[] = { "LANG", "LANGUAGE", "LC_ALL", NULL };
	char path[64], *buf = NULL;
	size_t len = 0, cap = 0;
	ssize_t n;
	int fd;

	for (size_t i = 0; dropped[i] != NULL; ++i) {
		bool kept = false;
		for (size_t j = 0; j < g_args.env_vars_len; ++j)
			kept = kept || strcmp(g_args.env_vars[j], dropped[i]) == 0;
		if (!kept && spank_unsetenv(sp, dropped[i]) != ESPANK_SUCCESS)
			return -1;
	}
	snprintf(path, sizeof(path), "/proc/%d/environ", pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		slurm_error("pyxis: couldn't read /proc/%d/environ", pid);
		return -1;
	}
	do {
		if (len + 4096 + 1 > cap) {
			char *grown = realloc(buf, cap = cap * 2 + 8192);
			if (grown == NULL) {
				free(buf);
				close(fd);
				return -1;
			}
			buf = grown;
		}
		n = read(fd, buf + len, 4096);
		if (n > 0)
			len += (size_t)n;
	} while (n > 0);
	close(fd);
	buf[len] = '\0';
	for (size_t i = 0; i < len; i += strlen(buf + i) + 1) {
		char *entry = buf + i, *eq = strchr(entry, '=');
		bool keep_job = false;
		if (eq == NULL)
			continue;
		*eq = '\0';
		for (size_t j = 0; j < g_args.env_vars_len; ++j)
			keep_job = keep_job || strcmp(g_args.env_vars[j], entry) == 0;
		spank_err_t rc = spank_setenv(sp, entry, eq + 1, keep_job ? 0 : 1);
		*eq = '=';
		if (rc != ESPANK_SUCCESS && rc != ESPANK_ENV_EXISTS) {
			slurm_error("pyxis: failed to set %s: %s", entry, spank_strerror(rc));
			free(buf);
			return -1;
		}
	}
	free(buf);
	return 0;
}

static int copy_env(spank_t sp, const char *from, const char *to)
{
	char buf[256];

	if (spank_getenv(sp, from, buf, sizeof(buf)) != ESPANK_SUCCESS ||
	    spank_setenv(sp, to, buf, 1) != ESPANK_SUCCESS) {
		slurm_error("pyxis: pytorch: couldn't remap environment variable %s", from);
		return -1;
	}
	return 0;
}

/* The task joins the container: namespaces, working directory, environment. */
static int join_container(spank_t sp, pid_t pid)
{
	int user = -1, cgroup = -1, mnt = -1, net = -1, ipc = -1, uts = -1, root = -1, cwd = -1, rv = -1;
	char link[64], buf[64];

	if (open_namespace(pid, "user", true, &user) < 0 || open_namespace(pid, "mnt", false, &mnt) < 0 ||
	    open_namespace(pid, "cgroup", false, &cgroup) < 0 || open_namespace(pid, "net", true, &net) < 0 ||
	    open_namespace(pid, "ipc", true, &ipc) < 0 || open_namespace(pid, "uts", true, &uts) < 0) {
		slurm_error("pyxis: couldn't get container namespaces");
		goto out;
	}
	if ((g_args.unshare_net == 1 && net < 0) || (g_args.unshare_ipc == 1 && ipc < 0) ||
	    (g_args.unshare_uts == 1 && uts < 0)) {
		slurm_error("pyxis: error: --container-unshare=%s requested but the container is not in a separate %s namespace",
			    g_args.unshare_net == 1 && net < 0 ? "net" : g_args.unshare_ipc == 1 && ipc < 0 ? "ipc" : "uts",
			    g_args.unshare_net == 1 && net < 0 ? "network" : g_args.unshare_ipc == 1 && ipc < 0 ? "IPC" : "UTS");
		goto out;
	}
	snprintf(link, sizeof(link), "/proc/%d/root", pid);
	if ((root = open(link, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		slurm_error("pyxis: couldn't open the container's root: %s", strerror(errno));
		goto out;
	}
	snprintf(link, sizeof(link), "/proc/%d/cwd", pid);
	if ((cwd = open(link, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		slurm_error("pyxis: couldn't read container cwd: %s", strerror(errno));
		goto out;
	}
	if (import_container_env(sp, pid) < 0) {
		slurm_error("pyxis: couldn't read container environment");
		goto out;
	}
	if (spank_getenv(sp, "PYTORCH_VERSION", buf, sizeof(buf)) == ESPANK_SUCCESS &&
	    (copy_env(sp, "SLURM_PROCID", "RANK") < 0 || copy_env(sp, "SLURM_LOCALID", "LOCAL_RANK") < 0))
		goto out;
	/* The same user namespace: root's container in a chroot, which has none (enroot-stand-in). */
	if (!g_step.privileged && user >= 0 && setns(user, CLONE_NEWUSER) < 0) {
		slurm_error("pyxis: couldn't join user namespace: %s", strerror(errno));
		goto out;
	}
	if (cgroup >= 0 && setns(cgroup, CLONE_NEWCGROUP) < 0) {
		slurm_error("pyxis: couldn't join cgroup namespace: %s", strerror(errno));
		goto out;
	}
	if (setns(mnt, CLONE_NEWNS) < 0) {
		slurm_error("pyxis: couldn't join mount namespace: %s", strerror(errno));
		goto out;
	}
	if ((ipc >= 0 && setns(ipc, CLONE_NEWIPC) < 0) || (uts >= 0 && setns(uts, CLONE_NEWUTS) < 0) ||
	    (net >= 0 && setns(net, CLONE_NEWNET) < 0)) {
		slurm_error("pyxis: couldn't join the container's IPC, UTS or network namespace: %s", strerror(errno));
		goto out;
	}
	/*
	 * Enroot's pivot_root made the container's root the namespace's, and setns put us there. Not
	 * so where the node's own root is a chroot (a build root): the pivot then lands on a mount
	 * below the namespace's root, so the task takes the container process's root as nsenter -r
	 * does. The same directory everywhere else.
	 */
	if (fchdir(root) < 0 || chroot(".") < 0) {
		slurm_error("pyxis: couldn't enter the container's root: %s", strerror(errno));
		goto out;
	}
	if (g_args.workdir != NULL) {
		if (chdir(g_args.workdir) < 0) {
			slurm_error("pyxis: couldn't chdir to %s: %s", g_args.workdir, strerror(errno));
			goto out;
		}
	} else if (fchdir(cwd) < 0) {
		slurm_error("pyxis: couldn't chdir to container cwd: %s", strerror(errno));
		goto out;
	}
	rv = 0;
out:
	for (int *fd = (int[]){ user, cgroup, mnt, net, ipc, uts, root, cwd }, i = 0; i < 8; ++i)
		if (fd[i] >= 0)
			close(fd[i]);
	return rv;
}

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
