/*
 * container.c: starting the step's container and joining it from each task.
 * Part of the Pyxis stand-in: spank_pyxis_stand_in.c includes it, so that the plugin stays one
 * translation unit (one gcc call in tools/local-slurm.d/stand-ins.sh, its names file-local).
 */

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
