# shellcheck shell=bash disable=SC2034,SC2154
# The cluster's accounts and their tokens: the user the cluster runs jobs as, the deployment
# test's and per-user mode's Unix accounts, and the tokens `up` and `token` mint for them.
# Sourced by tools/local-slurm.

choose_user() {
  [[ -z $user ]] || return 0
  user=root
  if [[ -n ${SUDO_USER:-} && $SUDO_USER != root ]] && getent passwd "$SUDO_USER" >/dev/null; then
    user=$SUDO_USER
  fi
}

random_bytes() { head -c "$1" /dev/urandom; }

# create_account KIND NAME [USERADD OPTIONS...]: NAME, created once without a home or a login
# shell, with a primary group of its own name (a group of that name already there is taken).
# KIND says what it is in the log line ("system user", "user").
create_account() {
  local kind=$1 account=$2
  shift 2
  getent passwd "$account" >/dev/null && return 0
  local primary=(--user-group)
  # useradd refuses --user-group when a group of that name exists already.
  if getent group "$account" >/dev/null; then primary=(--gid "$account"); fi
  useradd --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin "${primary[@]}" "$@" "$account" ||
    die "useradd $* $account failed"
  say "created the $kind $account"
}

# ensure_accounts: the deployment test's two users and their shared group, created once
# (system accounts). The group's members are set to exactly the service account and the job
# user.
ensure_accounts() {
  getent group "$job_group" >/dev/null || groupadd --system "$job_group" ||
    die "groupadd --system $job_group failed"
  local account
  for account in "$service_user" "$job_user"; do
    create_account "system user" "$account" --system --groups "$job_group"
  done
  local members
  members=$(getent group "$job_group" | cut -d: -f4 | tr ',' '\n' | sort | paste -sd, -)
  if [[ $members != "$(printf '%s\n' "$service_user" "$job_user" | sort | paste -sd, -)" ]]; then
    gpasswd -M "$service_user,$job_user" "$job_group" >/dev/null ||
      die "gpasswd -M $service_user,$job_user $job_group failed"
  fi
  # The apptainer stand-in's bubblewrap needs a user namespace for any user but root.
  local refused
  if ! refused=$(setpriv --reuid="$job_user" --regid="$job_group" --init-groups unshare --user true 2>&1); then
    say "warning: the job user $job_user cannot create a user namespace here (${refused:-refused}): jobs that run" \
      "as $job_user fail in the apptainer stand-in (a chroot refuses them to all but root; so does" \
      "kernel.unprivileged_userns_clone=0)"
  fi
}

# ensure_per_user_accounts: per-user mode's test users (see per_user_users), created once as
# ordinary accounts.
ensure_per_user_accounts() {
  local account
  for account in "${per_user_users[@]}"; do
    create_account "user" "$account"
  done
}

# mint_token_for USER SECONDS FILE OWNER [FILE OWNER]: a token for USER written atomically
# to each FILE (0600, owned by its OWNER).
mint_token_for() {
  local name=$1 seconds=$2 tmp=$client_dir/.jwt.token.new err=$log_dir/scontrol-token.log
  shift 2
  if ! (umask 077 && scontrol token username="$name" lifespan="$seconds" >"$tmp" 2>"$err"); then
    rm -f "$tmp"
    die_with_log "scontrol token username=$name failed" "$err"
  fi
  grep -qE '^SLURM_JWT=[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$' "$tmp" || {
    rm -f "$tmp"
    die "scontrol token printed something that is not SLURM_JWT=<token>; read $err"
  }
  local file owner
  while (($#)); do
    file=$1 owner=$2
    shift 2
    install -m 0600 -o "$owner" -g "$(id -gn "$owner")" "$tmp" "$file.new"
    mv -f "$file.new" "$file"
  done
  rm -f "$tmp"
}

# mint_token SECONDS: a token for $user into the client token file.
mint_token() {
  mint_token_for "$user" "$1" "$client_token" "$user"
}

# mint_job_token SECONDS: a token for the job user into root's copy and the service account's.
mint_job_token() {
  mint_token_for "$job_user" "$1" "$job_client_token" root "$job_service_token" "$service_user"
}

# token_is_fresh FILE...: every FILE holds a token newer than the key with more than an hour left.
token_is_fresh() {
  local file left
  for file in "$@"; do
    [[ -s $file && ! $file -ot $jwt_key ]] || return 1
    left=$(token_seconds_left "$file") || return 1
    ((left > 3600)) || return 1
  done
}
