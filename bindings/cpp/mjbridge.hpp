// mjbridge.hpp: a header-only C++17 wrapper over include/mjbridge.h.
//
// Ownership is RAII: an mjb::Endpoint closes its handle in its destructor and is move-only;
// library strings are copied into std::string and freed at once. Mutations return an
// mjb::Result (the outcome is data: busy, rolled back and stop-latched are normal answers);
// opening an endpoint and reading documents throw mjb::Error when refused.
// Thread rules are the C ABI's: any method from any thread; stop(), safety(), the
// acknowledgements, dims(), names and frame reads never wait for the native lock.
#ifndef MJBRIDGE_HPP
#define MJBRIDGE_HPP

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <optional>
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

// The name of a frame/input field ("qpos", ...); empty for an unknown value.
inline std::string field_name(mjb_field f) {
  const char* n = mjb_field_name(f);
  return n ? n : "";
}

// Plugin libraries (process-wide, permanent). Throw mjb::Error when refused.
inline size_t plugin_load(const std::string& path) {
  size_t plugins = 0;
  mjb_outcome o = mjb_plugin_load(path.c_str(), &plugins);
  if (o != MJB_OK) throw Error(o, last_error());
  return plugins;
}
struct PluginCount {
  size_t libraries = 0;
  size_t plugins = 0;
};
inline PluginCount plugin_load_dir(const std::string& dir) {
  PluginCount c;
  mjb_outcome o = mjb_plugin_load_dir(dir.c_str(), &c.libraries, &c.plugins);
  if (o != MJB_OK) throw Error(o, last_error());
  return c;
}

// The process's log callback (see mjb_set_log_callback): called on the thread whose call
// produced the message, outside every lock. An empty function removes it.
using LogFn = std::function<void(mjb_log_level, std::string_view)>;
inline void set_log_callback(LogFn fn, mjb_log_level min_level = MJB_LOG_WARNING) {
  static std::mutex lock;
  static std::unique_ptr<LogFn> current;
  std::lock_guard<std::mutex> guard(lock);
  std::unique_ptr<LogFn> next = fn ? std::make_unique<LogFn>(std::move(fn)) : nullptr;
  auto trampoline = [](void* user, int32_t level, const char* message) {
    (*static_cast<LogFn*>(user))(static_cast<mjb_log_level>(level), message);
  };
  mjb_outcome o = mjb_set_log_callback(next ? +trampoline : nullptr, next.get(), min_level);
  if (o != MJB_OK) throw Error(o, last_error());
  // The bridge no longer calls the previous function: it may go.
  current = std::move(next);
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
  // Typed inputs: one field, whole (id -1) or one object's slice.
  Result input(mjb_field field, int32_t id, const std::vector<double>& values,
               uint32_t timeout_ms = MJB_WAIT_FOREVER) {
    return answer([&](mjb_report* r) {
      return mjb_input_write(ep_, field, id, values.data(), values.size(), timeout_ms, r);
    });
  }
  // The hot loop: write inputs then step, under one admission.
  Result write_step(const std::vector<mjb_input>& inputs, uint32_t nstep,
                    uint32_t timeout_ms = MJB_WAIT_FOREVER) {
    return answer([&](mjb_report* r) {
      return mjb_write_step(ep_, inputs.data(), inputs.size(), nstep, timeout_ms, r);
    });
  }
  // Write inputs, step, then read frame fields into the requests' buffers, in one call.
  Result write_step_read(const mjb_input* inputs, size_t ninputs, uint32_t nstep,
                         mjb_frame_request* requests, size_t nrequests, mjb_frame_info* info,
                         uint32_t timeout_ms = MJB_WAIT_FOREVER) {
    return answer([&](mjb_report* r) {
      return mjb_write_step_read(ep_, inputs, ninputs, nstep, timeout_ms, requests, nrequests,
                                 info, r);
    });
  }
  Result ctrl_step(const std::vector<double>& ctrl, uint32_t nstep = 1,
                   uint32_t timeout_ms = MJB_WAIT_FOREVER) {
    mjb_input in{MJB_FIELD_CTRL, -1, ctrl.data(), ctrl.size()};
    return answer([&](mjb_report* r) { return mjb_write_step(ep_, &in, 1, nstep, timeout_ms, r); });
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

  // Model facts and names: no lock. Throw mjb::Error when refused.
  mjb_model_dims dims() const {
    mjb_model_dims d{};
    check(mjb_dims(ep_, &d));
    return d;
  }
  // nullopt when no object of that kind has the name.
  std::optional<int32_t> name_to_id(mjb_object_kind kind, const std::string& name) const {
    int32_t id = -1;
    mjb_outcome o = mjb_name_to_id(ep_, kind, name.c_str(), &id);
    if (o == MJB_REJECTED) return std::nullopt;
    check(o);
    return id;
  }
  std::string id_to_name(mjb_object_kind kind, int32_t id) const {
    size_t needed = 0;
    mjb_outcome o = mjb_id_to_name(ep_, kind, id, nullptr, 0, &needed);
    if (needed == 0) check(o);
    std::string name(needed, '\0');
    check(mjb_id_to_name(ep_, kind, id, name.data(), name.size(), &needed));
    name.resize(needed - 1);
    return name;
  }
  std::pair<size_t, size_t> sensor_slice(int32_t sensor) const {
    size_t adr = 0, dim = 0;
    check(mjb_sensor_slice(ep_, sensor, &adr, &dim));
    return {adr, dim};
  }
  mjb_joint_adr joint_slice(int32_t joint) const {
    mjb_joint_adr s{};
    check(mjb_joint_slice(ep_, joint, &s));
    return s;
  }

  // Frames: no lock, never torn. frame() reads several fields of one frame into the given
  // vectors (resized to each field's length).
  size_t frame_field_len(mjb_field field) const {
    size_t n = 0;
    check(mjb_frame_field_len(ep_, field, &n));
    return n;
  }
  mjb_frame_info frame(mjb_field field, std::vector<double>& out) const {
    out.resize(frame_field_len(field));
    mjb_frame_info info{};
    size_t written = 0;
    check(mjb_frame_read(ep_, field, out.data(), out.size(), &written, &info));
    return info;
  }
  mjb_frame_info frame(
      std::initializer_list<std::pair<mjb_field, std::vector<double>*>> fields) const {
    std::vector<mjb_frame_request> reqs;
    reqs.reserve(fields.size());
    for (auto& f : fields) {
      f.second->resize(frame_field_len(f.first));
      reqs.push_back({f.first, f.second->data(), f.second->size(), 0});
    }
    mjb_frame_info info{};
    check(mjb_frame_read_many(ep_, reqs.data(), reqs.size(), &info));
    return info;
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

  static void check(mjb_outcome o) {
    if (o != MJB_OK) throw Error(o, last_error());
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
