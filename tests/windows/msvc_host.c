/* A host as an MSVC-built Unreal module calls the bridge: compiled by clang in MSVC mode
 * (--target=x86_64-pc-windows-msvc, so mjbridge.h marks every export __declspec(dllimport)) and
 * linked by lld-link against the MSVC import library mjbridge.lib, without a C runtime: the
 * entry point is ours, output goes through kernel32's WriteFile. tests/engine_packages.rs runs
 * it under Wine from a plugin's Win64 binaries folder: open, step, checkpoint, restore (the
 * world back bit for bit, by its state hash), a refused restore that changes nothing, a refused
 * step of a NULL endpoint. Prints "msvc_host: all checks passed" and exits 0, or names the
 * failed check and exits 1. */
#include "mjbridge.h"

/* kernel32, declared here (no Windows SDK headers in MSVC mode on this machine). */
typedef void* HANDLE;
__declspec(dllimport) HANDLE __stdcall GetStdHandle(unsigned long which);
__declspec(dllimport) int __stdcall WriteFile(HANDLE file, const void* data, unsigned long len,
                                              unsigned long* written, void* overlapped);
__declspec(dllimport) __declspec(noreturn) void __stdcall ExitProcess(unsigned int code);
#define STD_OUTPUT_HANDLE ((unsigned long)-11)

/* What the compiler may call for struct copies and zeroing, without a C runtime. */
void* memset(void* dst, int c, size_t n) {
  volatile unsigned char* d = (volatile unsigned char*)dst;
  while (n--) *d++ = (unsigned char)c;
  return dst;
}
void* memcpy(void* dst, const void* src, size_t n) {
  volatile unsigned char* d = (volatile unsigned char*)dst;
  const unsigned char* s = (const unsigned char*)src;
  while (n--) *d++ = *s++;
  return dst;
}
int _fltused = 0;

static size_t len(const char* s) {
  size_t n = 0;
  while (s[n]) n++;
  return n;
}
static void say(const char* s) {
  unsigned long written;
  WriteFile(GetStdHandle(STD_OUTPUT_HANDLE), s, (unsigned long)len(s), &written, 0);
}
static int same(const char* a, size_t na, const char* b, size_t nb) {
  if (na != nb) return 0;
  for (size_t i = 0; i < na; i++)
    if (a[i] != b[i]) return 0;
  return 1;
}
static const char* find(const char* hay, const char* needle) {
  for (; *hay; hay++) {
    size_t i = 0;
    while (needle[i] && hay[i] == needle[i]) i++;
    if (!needle[i]) return hay;
  }
  return 0;
}

#define CHECK(cond)                                  \
  do {                                               \
    if (!(cond)) {                                   \
      say("msvc_host: check failed: " #cond "\r\n"); \
      ExitProcess(1);                                \
    }                                                \
  } while (0)

/* The state hash of a world document, copied into out (NUL-terminated). */
static void state_hash(mjb_endpoint* ep, char* out, size_t cap) {
  mjb_string* w = 0;
  CHECK(mjb_world_read(ep, MJB_WAIT_FOREVER, &w) == MJB_OK);
  const char* h = find(mjb_string_data(w), "\"state_hash\":\"");
  CHECK(h != 0);
  h += len("\"state_hash\":\"");
  size_t i = 0;
  while (h[i] && h[i] != '"' && i + 1 < cap) {
    out[i] = h[i];
    i++;
  }
  out[i] = 0;
  CHECK(mjb_string_free(w) == MJB_OK);
}

static const char config[] =
    "{\"model\":{\"xml\":\"<mujoco><option timestep='0.01'/><worldbody><body pos='0 0 1'>"
    "<joint name='hinge' type='hinge' axis='0 1 0' damping='0.1'/>"
    "<geom type='capsule' fromto='0 0 0 0 0 -0.5' size='0.03' mass='1'/></body></worldbody>"
    "<actuator><motor name='motor' joint='hinge'/></actuator></mujoco>\"},"
    "\"name\":\"msvc-host\",\"seed\":5}";

void start(void) {
  say("msvc_host: mjbridge ");
  say(mjb_version());
  say("\r\n");
  CHECK(same(mjb_version(), len(mjb_version()), MJB_VERSION, len(MJB_VERSION)));

  mjb_endpoint* ep = 0;
  CHECK(mjb_endpoint_open(config, sizeof config - 1, &ep) == MJB_OK && ep != 0);
  mjb_report r;
  double ctrl[1] = {0.5};
  CHECK(mjb_set_ctrl(ep, ctrl, 1, MJB_WAIT_FOREVER, &r) == MJB_OK);
  CHECK(mjb_endpoint_step(ep, 50, MJB_WAIT_FOREVER, &r) == MJB_OK && r.tick_after == 50);

  mjb_string* cp = 0;
  CHECK(mjb_checkpoint_read(ep, MJB_WAIT_FOREVER, &cp) == MJB_OK && cp != 0);
  char at50[96], later[96], back[96];
  state_hash(ep, at50, sizeof at50);
  CHECK(mjb_endpoint_step(ep, 70, MJB_WAIT_FOREVER, &r) == MJB_OK && r.tick_after == 120);
  state_hash(ep, later, sizeof later);
  CHECK(!same(at50, len(at50), later, len(later)));

  CHECK(mjb_restore(ep, mjb_string_data(cp), mjb_string_len(cp), MJB_WAIT_FOREVER, &r) == MJB_OK);
  CHECK(r.tick_before == 120 && r.tick_after == 50);
  state_hash(ep, back, sizeof back);
  CHECK(same(at50, len(at50), back, len(back)));
  say("msvc_host: restored tick 120 -> 50, state hash ");
  say(back);
  say("\r\n");

  /* Refused: a document that is no checkpoint; nothing changes. */
  static const char junk[] = "{\"profile\":1}";
  CHECK(mjb_restore(ep, junk, sizeof junk - 1, MJB_WAIT_FOREVER, &r) == MJB_REJECTED);
  CHECK(r.outcome == MJB_REJECTED && r.tick_before == 50 && r.tick_after == 50);
  char err[512];
  size_t needed = 0;
  CHECK(mjb_last_error(err, sizeof err, &needed) == MJB_OK && needed <= sizeof err);
  CHECK(find(err, "\"outcome\":\"MJB_REJECTED\"") != 0);
  state_hash(ep, later, sizeof later);
  CHECK(same(at50, len(at50), later, len(later)));
  say("msvc_host: refused: ");
  say(err);
  say("\r\n");
  CHECK(mjb_endpoint_step(0, 1, 0, &r) == MJB_INVALID_ARGUMENT && r.reason == MJB_REASON_NULL_ARGUMENT);

  CHECK(mjb_string_free(cp) == MJB_OK);
  CHECK(mjb_endpoint_free(ep) == MJB_OK);
  say("msvc_host: all checks passed\r\n");
  ExitProcess(0);
}
