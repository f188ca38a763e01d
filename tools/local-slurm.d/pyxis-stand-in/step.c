/*
 * step.c: plugstack.conf's arguments, the step's job and shared state, running enroot and its configuration file.
 * Part of the Pyxis stand-in: spank_pyxis_stand_in.c includes it, so that the plugin stays one
 * translation unit (one gcc call in tools/local-slurm.d/stand-ins.sh, its names file-local).
 */

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
