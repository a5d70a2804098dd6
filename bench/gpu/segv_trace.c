/* segv_trace.c: LD_PRELOAD'ed by `bench/gpu/run` in trace mode on the device machine, where no
 * debugger is installed. On SIGSEGV/SIGBUS/SIGABRT it prints where the process was: the faulting
 * instruction, the word on top of the stack (the return address, when the fault was a call
 * through a bad pointer: glibc's backtrace() stops there, as it did on the first try) and the
 * frame-pointer chain (complete in the -O0 trace build), each as module(+offset) [symbol], and,
 * for frames of libraries built without frame pointers (LibTorch's), every word of the top of
 * the stack that points into executable code ("scan": the return addresses, and some stale
 * words); the run script resolves the executable's frames to file:line with addr2line. Then it dies with
 * the same signal. It writes with write(2) only; dladdr is not async-signal-safe, which a
 * process that is dying anyway can afford. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>

static void put(const char* s) { ssize_t r = write(2, s, strlen(s)); (void)r; }

static void put_hex(uintptr_t v) {
  char buf[19] = "0x";
  int n = 2;
  for (int shift = 60; shift >= 0; shift -= 4) {
    int digit = (int)((v >> shift) & 0xf);
    if (n == 2 && digit == 0 && shift > 0) continue;
    buf[n++] = "0123456789abcdef"[digit];
  }
  buf[n] = 0;
  put(buf);
}

static void put_frame(const char* what, uintptr_t pc) {
  Dl_info info;
  put(what);
  put(" ");
  if (pc != 0 && dladdr((void*)pc, &info) && info.dli_fname) {
    put(info.dli_fname);
    put("(+");
    put_hex(pc - (uintptr_t)info.dli_fbase);
    put(")");
    if (info.dli_sname) { put(" "); put(info.dli_sname); }
  } else {
    put("?(");
    put_hex(pc);
    put(")");
  }
  put("\n");
}

/* Executable mappings of the process, read from /proc/self/maps with read(2) only. */
static uintptr_t code[512][2];
static char maps[1 << 18];

static uintptr_t parse_hex(const char** p) {
  uintptr_t v = 0;
  for (;; ++*p) {
    const char c = **p;
    if (c >= '0' && c <= '9') v = v * 16 + (uintptr_t)(c - '0');
    else if (c >= 'a' && c <= 'f') v = v * 16 + (uintptr_t)(c - 'a' + 10);
    else return v;
  }
}

static int read_code_ranges(void) {
  const int fd = open("/proc/self/maps", O_RDONLY);
  if (fd < 0) return 0;
  size_t size = 0;
  ssize_t got;
  while (size < sizeof maps - 1 && (got = read(fd, maps + size, sizeof maps - 1 - size)) > 0) {
    size += (size_t)got;
  }
  close(fd);
  maps[size] = 0;
  int n = 0;
  for (const char* line = maps; *line && n < 512;) {
    const char* p = line;
    const uintptr_t start = parse_hex(&p);
    ++p; /* '-' */
    const uintptr_t end = parse_hex(&p);
    if (p[0] == ' ' && p[3] == 'x') { code[n][0] = start; code[n][1] = end; ++n; }
    while (*line && *line != '\n') ++line;
    if (*line) ++line;
  }
  return n;
}

static void on_fatal(int sig, siginfo_t* si, void* context) {
  signal(sig, SIG_DFL); /* a second fault while reading the stack ends it */
  const ucontext_t* uc = (const ucontext_t*)context;
  const uintptr_t pc = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
  const uintptr_t sp = (uintptr_t)uc->uc_mcontext.gregs[REG_RSP];
  uintptr_t fp = (uintptr_t)uc->uc_mcontext.gregs[REG_RBP];
  put("segv_trace: signal ");
  put_hex((uintptr_t)sig);
  put(", fault address ");
  put_hex((uintptr_t)si->si_addr);
  put("\n");
  put_frame("pc", pc);
  if (sp != 0 && (sp & 7) == 0) put_frame("[sp]", *(const uintptr_t*)sp);
  for (int i = 0; i < 48 && fp > sp - 1 && fp - sp < (64u << 20) && (fp & 7) == 0; ++i) {
    const uintptr_t ret = ((const uintptr_t*)fp)[1];
    if (ret == 0) break;
    put_frame("fp", ret);
    const uintptr_t next = ((const uintptr_t*)fp)[0];
    if (next <= fp) break;
    fp = next;
  }
  /* The top 4 KiB of the stack (the mapping around sp is at least that large): each word that
   * points into executable code, as /proc/self/maps lists it. */
  const int ranges = read_code_ranges();
  for (int i = 0; i < 512 && sp != 0 && (sp & 7) == 0; ++i) {
    const uintptr_t word = ((const uintptr_t*)sp)[i];
    for (int r = 0; r < ranges; ++r) {
      if (word >= code[r][0] && word < code[r][1]) {
        put_frame("scan", word);
        break;
      }
    }
  }
  put("segv_trace: end\n");
  raise(sig);
}

__attribute__((constructor)) static void install(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_fatal;
  sa.sa_flags = SA_SIGINFO;
  sigaction(SIGSEGV, &sa, 0);
  sigaction(SIGBUS, &sa, 0);
  sigaction(SIGABRT, &sa, 0);
}
