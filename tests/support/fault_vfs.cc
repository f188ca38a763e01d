#include "support/fault_vfs.h"

#include <sqlite3.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <stdexcept>

namespace tpslurm::testing {
namespace {

// Our file, followed in the same allocation by the real VFS's file.
struct FaultFile {
  sqlite3_file base;
  sqlite3_file* real;
  const char* name;  // SQLite keeps it valid until xClose; null for temporary files
};

constexpr std::size_t kRealOffset = (sizeof(FaultFile) + 15) & ~std::size_t{15};

sqlite3_vfs* g_real = nullptr;
FaultVfs* g_faults = nullptr;

sqlite3_file* real_of(sqlite3_file* file) { return reinterpret_cast<FaultFile*>(file)->real; }

// The failure for a counted call of `file`, or SQLITE_OK to go on.
int fault_for(sqlite3_file* file, int failure_code) {
  auto* f = reinterpret_cast<FaultFile*>(file);
  return g_faults->watches(f->name) ? g_faults->next_call(failure_code) : SQLITE_OK;
}

int x_close(sqlite3_file* file) { return real_of(file)->pMethods->xClose(real_of(file)); }

int x_read(sqlite3_file* file, void* buffer, int amount, sqlite3_int64 offset) {
  if (int rc = fault_for(file, SQLITE_IOERR_READ); rc != SQLITE_OK) return rc;
  return real_of(file)->pMethods->xRead(real_of(file), buffer, amount, offset);
}

int x_write(sqlite3_file* file, const void* buffer, int amount, sqlite3_int64 offset) {
  if (int rc = fault_for(file, SQLITE_IOERR_WRITE); rc != SQLITE_OK) return rc;
  return real_of(file)->pMethods->xWrite(real_of(file), buffer, amount, offset);
}

int x_truncate(sqlite3_file* file, sqlite3_int64 size) {
  if (int rc = fault_for(file, SQLITE_IOERR_TRUNCATE); rc != SQLITE_OK) return rc;
  return real_of(file)->pMethods->xTruncate(real_of(file), size);
}

int x_sync(sqlite3_file* file, int flags) {
  if (int rc = fault_for(file, SQLITE_IOERR_FSYNC); rc != SQLITE_OK) return rc;
  return real_of(file)->pMethods->xSync(real_of(file), flags);
}

int x_file_size(sqlite3_file* file, sqlite3_int64* size) {
  return real_of(file)->pMethods->xFileSize(real_of(file), size);
}
int x_lock(sqlite3_file* file, int level) { return real_of(file)->pMethods->xLock(real_of(file), level); }
int x_unlock(sqlite3_file* file, int level) { return real_of(file)->pMethods->xUnlock(real_of(file), level); }
int x_check_reserved_lock(sqlite3_file* file, int* out) {
  return real_of(file)->pMethods->xCheckReservedLock(real_of(file), out);
}
int x_file_control(sqlite3_file* file, int op, void* arg) {
  return real_of(file)->pMethods->xFileControl(real_of(file), op, arg);
}
int x_sector_size(sqlite3_file* file) { return real_of(file)->pMethods->xSectorSize(real_of(file)); }
int x_device_characteristics(sqlite3_file* file) {
  return real_of(file)->pMethods->xDeviceCharacteristics(real_of(file));
}
int x_shm_map(sqlite3_file* file, int page, int size, int extend, void volatile** out) {
  return real_of(file)->pMethods->xShmMap(real_of(file), page, size, extend, out);
}
int x_shm_lock(sqlite3_file* file, int offset, int n, int flags) {
  return real_of(file)->pMethods->xShmLock(real_of(file), offset, n, flags);
}
void x_shm_barrier(sqlite3_file* file) { real_of(file)->pMethods->xShmBarrier(real_of(file)); }
int x_shm_unmap(sqlite3_file* file, int delete_flag) {
  return real_of(file)->pMethods->xShmUnmap(real_of(file), delete_flag);
}
int x_fetch(sqlite3_file* file, sqlite3_int64 offset, int amount, void** out) {
  return real_of(file)->pMethods->xFetch(real_of(file), offset, amount, out);
}
int x_unfetch(sqlite3_file* file, sqlite3_int64 offset, void* page) {
  return real_of(file)->pMethods->xUnfetch(real_of(file), offset, page);
}

// Version 3 like the unix VFS's own methods; a real file of a lower version never gets its
// shm or fetch methods called, since SQLite reads iVersion from the real methods we copy.
sqlite3_io_methods make_methods(int version) {
  sqlite3_io_methods m{};
  m.iVersion = version;
  m.xClose = x_close;
  m.xRead = x_read;
  m.xWrite = x_write;
  m.xTruncate = x_truncate;
  m.xSync = x_sync;
  m.xFileSize = x_file_size;
  m.xLock = x_lock;
  m.xUnlock = x_unlock;
  m.xCheckReservedLock = x_check_reserved_lock;
  m.xFileControl = x_file_control;
  m.xSectorSize = x_sector_size;
  m.xDeviceCharacteristics = x_device_characteristics;
  if (version >= 2) {
    m.xShmMap = x_shm_map;
    m.xShmLock = x_shm_lock;
    m.xShmBarrier = x_shm_barrier;
    m.xShmUnmap = x_shm_unmap;
  }
  if (version >= 3) {
    m.xFetch = x_fetch;
    m.xUnfetch = x_unfetch;
  }
  return m;
}

const sqlite3_io_methods kMethods[] = {make_methods(1), make_methods(2), make_methods(3)};

int x_open(sqlite3_vfs*, sqlite3_filename name, sqlite3_file* file, int flags, int* out_flags) {
  auto* f = reinterpret_cast<FaultFile*>(file);
  f->base.pMethods = nullptr;
  f->real = reinterpret_cast<sqlite3_file*>(reinterpret_cast<char*>(file) + kRealOffset);
  f->name = name;
  int rc = g_real->xOpen(g_real, name, f->real, flags, out_flags);
  if (f->real->pMethods == nullptr) return rc;
  const int version = f->real->pMethods->iVersion;
  f->base.pMethods = &kMethods[std::max(1, std::min(version, 3)) - 1];
  return rc;
}

int x_delete(sqlite3_vfs*, const char* name, int sync_dir) { return g_real->xDelete(g_real, name, sync_dir); }
int x_access(sqlite3_vfs*, const char* name, int flags, int* out) { return g_real->xAccess(g_real, name, flags, out); }
int x_full_pathname(sqlite3_vfs*, const char* name, int size, char* out) {
  return g_real->xFullPathname(g_real, name, size, out);
}
void* x_dl_open(sqlite3_vfs*, const char* name) { return g_real->xDlOpen(g_real, name); }
void x_dl_error(sqlite3_vfs*, int size, char* out) { g_real->xDlError(g_real, size, out); }
void (*x_dl_sym(sqlite3_vfs*, void* handle, const char* symbol))(void) {
  return g_real->xDlSym(g_real, handle, symbol);
}
void x_dl_close(sqlite3_vfs*, void* handle) { g_real->xDlClose(g_real, handle); }
int x_randomness(sqlite3_vfs*, int size, char* out) { return g_real->xRandomness(g_real, size, out); }
int x_sleep(sqlite3_vfs*, int micros) { return g_real->xSleep(g_real, micros); }
int x_current_time(sqlite3_vfs*, double* out) { return g_real->xCurrentTime(g_real, out); }
int x_get_last_error(sqlite3_vfs*, int size, char* out) { return g_real->xGetLastError(g_real, size, out); }
int x_current_time_int64(sqlite3_vfs*, sqlite3_int64* out) { return g_real->xCurrentTimeInt64(g_real, out); }

sqlite3_vfs g_vfs{};

}  // namespace

FaultVfs& FaultVfs::install() {
  static FaultVfs* installed = [] {
    g_real = sqlite3_vfs_find(nullptr);
    if (g_real == nullptr || g_real->iVersion < 2) throw std::runtime_error("fault VFS: no default SQLite VFS to wrap");
    g_faults = new FaultVfs();
    g_vfs.iVersion = 2;
    g_vfs.szOsFile = static_cast<int>(kRealOffset) + g_real->szOsFile;
    g_vfs.mxPathname = g_real->mxPathname;
    g_vfs.zName = "tp-fault";
    g_vfs.xOpen = x_open;
    g_vfs.xDelete = x_delete;
    g_vfs.xAccess = x_access;
    g_vfs.xFullPathname = x_full_pathname;
    g_vfs.xDlOpen = x_dl_open;
    g_vfs.xDlError = x_dl_error;
    g_vfs.xDlSym = x_dl_sym;
    g_vfs.xDlClose = x_dl_close;
    g_vfs.xRandomness = x_randomness;
    g_vfs.xSleep = x_sleep;
    g_vfs.xCurrentTime = x_current_time;
    g_vfs.xGetLastError = x_get_last_error;
    g_vfs.xCurrentTimeInt64 = x_current_time_int64;
    if (sqlite3_vfs_register(&g_vfs, 1) != SQLITE_OK) throw std::runtime_error("fault VFS: cannot register");
    return g_faults;
  }();
  return *installed;
}

void FaultVfs::watch(const std::string& prefix) {
  std::lock_guard lock(m_mutex);
  m_prefix = prefix;
}

void FaultVfs::arm(const FaultPlan& plan) {
  std::lock_guard lock(m_mutex);
  m_plan = plan;
}

void FaultVfs::clear() {
  std::lock_guard lock(m_mutex);
  m_plan = {};
}

void FaultVfs::reset() {
  std::lock_guard lock(m_mutex);
  m_calls = 0;
  m_failures = 0;
  m_syncs = 0;
}

std::int64_t FaultVfs::calls() const {
  std::lock_guard lock(m_mutex);
  return m_calls;
}

std::int64_t FaultVfs::failures() const {
  std::lock_guard lock(m_mutex);
  return m_failures;
}

std::int64_t FaultVfs::syncs() const {
  std::lock_guard lock(m_mutex);
  return m_syncs;
}

bool FaultVfs::watches(const char* path) const {
  std::lock_guard lock(m_mutex);
  return path != nullptr && !m_prefix.empty() && std::strncmp(path, m_prefix.c_str(), m_prefix.size()) == 0;
}

int FaultVfs::next_call(int failure_code) {
  std::lock_guard lock(m_mutex);
  const std::int64_t n = ++m_calls;
  if (failure_code == SQLITE_IOERR_FSYNC) ++m_syncs;
  const bool fails = m_plan.at > 0 && (n == m_plan.at || (m_plan.mode == FaultMode::always && n > m_plan.at));
  if (!fails) return SQLITE_OK;
  ++m_failures;
  if (failure_code == SQLITE_IOERR_WRITE && m_plan.write == WriteFault::disk_full) return SQLITE_FULL;
  return failure_code;
}

}  // namespace tpslurm::testing
