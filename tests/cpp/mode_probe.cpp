// Compiled twice by tests/c_hosts.rs, with and without exceptions, into two objects of one
// program: the wrapper's inline functions must not share a symbol between the two modes.
#include "mjbridge.hpp"

#if MJB_EXCEPTIONS
int probe_with_exceptions(const mjb::Expected<int>& e, const mjb::Result& r) {
#else
int probe_without_exceptions(const mjb::Expected<int>& e, const mjb::Result& r) {
#endif
  r.ensure_ok();
  return e.value();
}
