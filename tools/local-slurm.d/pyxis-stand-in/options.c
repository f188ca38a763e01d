/*
 * options.c: the release followed and the options srun, sbatch and salloc take.
 * Part of the Pyxis stand-in: spank_pyxis_stand_in.c includes it, so that the plugin stays one
 * translation unit (one gcc call in tools/local-slurm.d/stand-ins.sh, its names file-local).
 */

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
