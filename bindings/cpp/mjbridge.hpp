// mjbridge.hpp: a header-only C++17 wrapper over include/mjbridge.h.
//
// Ownership is RAII: an mjb::Endpoint closes its handle in its destructor and is move-only;
// library strings are copied into std::string and freed at once. Mutations return an
// mjb::Result (the outcome is data: busy, rolled back and stop-latched are normal answers);
// opening an endpoint and reading documents throw mjb::Error when refused.
// Thread rules are the C ABI's: any method from any thread; stop(), safety() and the
// acknowledgements never wait for the native lock.
#ifndef MJBRIDGE_HPP
#define MJBRIDGE_HPP

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "mjbridge.h"

namespace mjb {

// This thread's last refusal as JSON: {"outcome","reason","pointer","message"}.
inline std::string last_error() {
  size_t needed = 0;
  mjb_last_error(nullptr, 0, &needed);
  std::string text(needed, '\0');
  if (needed == 0 || mjb_last_error(text.data(), text.size(), &needed) != MJB_OK) return "{}";
  text.resize(needed - 1);
  return text;
}

class Error : public std::runtime_error {
 public:
  Error(mjb_outcome outcome, std::string detail)
      : std::runtime_error(std::string(mjb_outcome_name(outcome)) + ": " + detail),
        outcome_(outcome),
        detail_(std::move(detail)) {}
  mjb_outcome outcome() const noexcept { return outcome_; }
  // The last-error JSON of the refusal.
  const std::string& detail() const noexcept { return detail_; }

 private:
  mjb_outcome outcome_;
  std::string detail_;
};

// The answer of a mutation: its report, and the last-error JSON when it was not plain MJB_OK.
struct Result {
  mjb_report report{};
  std::string detail;
  mjb_outcome outcome() const noexcept { return static_cast<mjb_outcome>(report.outcome); }
  mjb_reason reason() const noexcept { return static_cast<mjb_reason>(report.reason); }
  bool ok() const noexcept { return report.outcome == MJB_OK; }
};

// Take a library string: copy it out and free it.
inline std::string take(mjb_string* s) {
  std::string out(mjb_string_data(s), mjb_string_len(s));
  mjb_string_free(s);
  return out;
}

inline std::string version() { return mjb_version(); }
inline std::string outcome_name(mjb_outcome o) { return mjb_outcome_name(o); }
inline std::string reason_name(mjb_reason r) { return mjb_reason_name(r); }

inline std::string build_info() {
  mjb_string* s = nullptr;
  mjb_outcome o = mjb_build_info(&s);
  if (o != MJB_OK) throw Error(o, last_error());
  return take(s);
}

class Endpoint {
 public:
  // Load a model per `config_json` (see mjb_endpoint_open). Throws mjb::Error on refusal.
  static Endpoint open(std::string_view config_json) {
    mjb_endpoint* ep = nullptr;
    mjb_outcome o = mjb_endpoint_open(config_json.data(), config_json.size(), &ep);
    if (o != MJB_OK) throw Error(o, last_error());
    return Endpoint(ep);
  }

  // Take ownership of a host's model/data; on refusal (exception) the host still owns them.
  static Endpoint adopt(struct mjModel_* model, struct mjData_* data,
                        std::string_view config_json) {
    mjb_endpoint* ep = nullptr;
    mjb_outcome o =
        mjb_endpoint_adopt(model, data, config_json.data(), config_json.size(), &ep);
    if (o != MJB_OK) throw Error(o, last_error());
    return Endpoint(ep);
  }

  Endpoint(const Endpoint&) = delete;
  Endpoint& operator=(const Endpoint&) = delete;
  Endpoint(Endpoint&& other) noexcept : ep_(std::exchange(other.ep_, nullptr)) {}
  Endpoint& operator=(Endpoint&& other) noexcept {
    if (this != &other) {
      close();
      ep_ = std::exchange(other.ep_, nullptr);
    }
    return *this;
  }
  ~Endpoint() { close(); }

  // Close now (also done by the destructor). Safe to call twice.
  void close() noexcept {
    if (ep_) mjb_endpoint_free(std::exchange(ep_, nullptr));
  }

  // The C handle, still owned by this object.
  mjb_endpoint* get() const noexcept { return ep_; }

  Result step(uint32_t nstep, uint32_t timeout_ms = MJB_WAIT_FOREVER) {
    return answer([&](mjb_report* r) { return mjb_step(ep_, nstep, timeout_ms, r); });
  }
  Result set_ctrl(const std::vector<double>& ctrl, uint32_t timeout_ms = MJB_WAIT_FOREVER) {
    return answer(
        [&](mjb_report* r) { return mjb_set_ctrl(ep_, ctrl.data(), ctrl.size(), timeout_ms, r); });
  }
  Result world_write(std::string_view json, uint32_t timeout_ms = MJB_WAIT_FOREVER) {
    return answer([&](mjb_report* r) {
      return mjb_world_write(ep_, json.data(), json.size(), timeout_ms, r);
    });
  }
  Result restore(std::string_view checkpoint, uint32_t timeout_ms = MJB_WAIT_FOREVER) {
    return answer([&](mjb_report* r) {
      return mjb_restore(ep_, checkpoint.data(), checkpoint.size(), timeout_ms, r);
    });
  }
  Result replace_model(std::string_view config_json, uint32_t timeout_ms = MJB_WAIT_FOREVER) {
    return answer([&](mjb_report* r) {
      return mjb_endpoint_replace_model(ep_, config_json.data(), config_json.size(), timeout_ms,
                                        r);
    });
  }

  // Documents; throw mjb::Error when refused (busy, too many values, closed handle).
  std::string world(uint32_t timeout_ms = MJB_WAIT_FOREVER) const {
    return read(mjb_world_read, timeout_ms);
  }
  std::string snapshot(uint32_t timeout_ms = MJB_WAIT_FOREVER) const {
    return read(mjb_snapshot, timeout_ms);
  }
  std::string checkpoint(uint32_t timeout_ms = MJB_WAIT_FOREVER) const {
    return read(mjb_checkpoint_read, timeout_ms);
  }

  // Safety: none of these waits for the native lock.
  mjb_safety_state stop() {
    mjb_safety_state s{};
    mjb_outcome o = mjb_stop(ep_, &s);
    if (o != MJB_OK) throw Error(o, last_error());
    return s;
  }
  mjb_safety_state safety() const {
    mjb_safety_state s{};
    mjb_outcome o = mjb_safety_read(ep_, &s);
    if (o != MJB_OK) throw Error(o, last_error());
    return s;
  }
  mjb_outcome confirm_paused() { return mjb_confirm_paused(ep_); }
  mjb_outcome safety_reset() { return mjb_safety_reset(ep_); }

 private:
  explicit Endpoint(mjb_endpoint* ep) noexcept : ep_(ep) {}

  template <typename F>
  static Result answer(F&& call) {
    Result res;
    mjb_outcome o = call(&res.report);
    if (o != MJB_OK || res.report.reason != MJB_REASON_NONE) res.detail = last_error();
    return res;
  }

  std::string read(mjb_outcome (*f)(mjb_endpoint*, uint32_t, mjb_string**),
                   uint32_t timeout_ms) const {
    mjb_string* s = nullptr;
    mjb_outcome o = f(ep_, timeout_ms, &s);
    if (o != MJB_OK) throw Error(o, last_error());
    return take(s);
  }

  mjb_endpoint* ep_ = nullptr;
};

}  // namespace mjb

#endif  // MJBRIDGE_HPP
