/* A stand-in bcryptprimitives.dll for running the Windows test programs under Wine 8, which
 * lacks ProcessPrng (Rust's standard library imports it on Windows since Rust 1.78). It fills
 * the buffer from RtlGenRandom (advapi32's SystemFunction036), Windows' older CSPRNG entry.
 * Test-only: tests/cross.rs puts it beside the programs it runs; it is never installed or
 * released, and real Windows (8.1 and later) has its own. */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
  while (len > 0) {
    ULONG chunk = len > 0x10000000 ? 0x10000000 : (ULONG)len;
    if (!SystemFunction036(data, chunk)) return FALSE;
    data += chunk;
    len -= chunk;
  }
  return TRUE;
}
