# Sourced by the benchmarks that keep a server's access log: `bench_log_dir WORK` prints a folder
# for it in memory (/dev/shm) when the host has one, else WORK. A send bench logs about 250 bytes
# a request, some 100 MB in 30 s; written to the store's disk and never synced, the kernel writes
# it back once it is 30 s old, and the store's log sync that meets that writeback waited
# 190 ms (one stall, every connection at once: p99 near 100 ms in the third run of every series).
# That is the load generator's file, not the service's; in production the log goes to a collector.
bench_log_dir() {
  local dir
  if [ -d /dev/shm ] && [ -w /dev/shm ] && dir=$(mktemp -d /dev/shm/bouncer-bench-log.XXXXXX 2>/dev/null); then
    echo "$dir"
  else
    echo "$1"
  fi
}
