// mjbridge.hpp: a header-only C++17 wrapper over include/mjbridge.h.
//
// Ownership is RAII: an mjb::Endpoint closes its handle in its destructor and is move-only;
// library strings are copied into std::string and freed at once.
// Results: every call that can be refused returns a result and never throws:
// - mutations return an mjb::Result (report + detail): busy, rolled back and stop-latched are
//   answers a control loop handles every tick;
// - reads and facts return an mjb::Expected<T> (the value, or the outcome and detail);
// - acknowledgements and settings return an mjb::Status.
// Every mutation has an overload whose first argument is an mjb::Expect: the tick, model
// configuration and last frame number the caller saw (a frame's, a Document's); when the
// endpoint has moved on, the
// call is refused with MJB_REASON_PRECONDITION and nothing is done (the `_if` exports).
// Documents come back as an mjb::Document: the text and the tick, configuration and frame
// number it was read at (it converts to std::string and std::string_view, as the text these reads returned).
// Restore points (mjb::RestorePoint, move-only, freed by its destructor) restore a captured
// state without JSON; one is immutable and may be applied from any thread to its endpoint.
// With exceptions enabled, Expected::value() and Result::ensure_ok() throw mjb::Error on a
// refusal and Endpoint::open() throws; built with -fno-exceptions (Unreal's default) nothing
// throws: check ok() before value() (value() of a refusal then calls std::abort()).
// Define MJB_NO_EXCEPTIONS to get the no-exception build with exceptions enabled.
// Hot paths allocate nothing: inputs and frame reads go through caller spans (mjb::Span), and
// only a refusal allocates (its detail string).
// Arrays: every call that takes values takes one mjb::Span, which a C array, a std::array, a
// std::vector (any container with data() and size()) or braced values convert to, each with
// its own length: ep.ctrl_step(ctrl, 5) writes all of ctrl and takes 5 steps whatever ctrl
// is. There is no pointer + length overload: one would sit beside the step count and the
// timeout as a third integer, and a C array would bind to it (array-to-pointer beats a
// conversion), reading a step count as the length. A bare pointer goes as mjb::span(ptr, n),
// its length beside it; a call with a bare pointer where the values go (the (ptr, n, nstep)
// overloads of 0.3 and earlier) fails to compile with a static_assert that says so, so no
// old pointer call compiles into something else. An old call that passed a C array and then
// its length now passes that length as the next parameter (the step count or the timeout):
// drop it (ep.ctrl_step(ctrl, 2, 5) is now ep.ctrl_step(ctrl, 5)).
// Configs: a string is a config document when its first character other than JSON whitespace
// is '{', else the path of an MJCF file (open("robot.xml")); mjb::Config builds one from
// typed values (Config::from_path, Config::from_xml). The Python and C# bindings read strings
// by the same rule.
// Thread rules are the C ABI's: any method from any thread; stop(), safety(), the
// acknowledgements, dims(), names and frame reads never wait for the native lock.
#ifndef MJBRIDGE_HPP
#define MJBRIDGE_HPP

#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#if !defined(MJB_NO_EXCEPTIONS) && \
    (defined(__cpp_exceptions) || defined(__EXCEPTIONS) || defined(_CPPUNWIND))
#define MJB_EXCEPTIONS 1
#include <stdexcept>
#else
#define MJB_EXCEPTIONS 0
#endif

#include "mjbridge.h"

// Everything below lives in an inline namespace named after the mode: a program whose
// translation units are built some with exceptions and some without (an Unreal module beside
// an exception-enabled library) gets two distinct sets of functions, never one mode's inline
// definition picked by the linker for the other's callers. Code names mjb::Endpoint either way.
#if MJB_EXCEPTIONS
#define MJB_CPP_MODE with_exceptions
#else
#define MJB_CPP_MODE no_exceptions
#endif

namespace mjb {
inline namespace MJB_CPP_MODE {

// This thread's last refusal as JSON: {"outcome","reason","pointer","message"}.
inline std::string last_error() {
  size_t needed = 0;
  mjb_last_error(nullptr, 0, &needed);
  std::string text(needed, '\0');
  if (needed == 0 || mjb_last_error(text.data(), text.size(), &needed) != MJB_OK) return "{}";
  text.resize(needed - 1);
  return text;
}

namespace impl {
// The value of a "key":"string" member of the flat last-error JSON (empty when absent/null).
inline std::string member(const std::string& json, std::string_view key) {
  std::string k = "\"" + std::string(key) + "\":\"";
  size_t at = json.find(k);
  if (at == std::string::npos) return "";
  std::string out;
  for (size_t i = at + k.size(); i < json.size() && json[i] != '"'; i++) {
    if (json[i] == '\\' && i + 1 < json.size()) i++;  // names and pointers carry no \u
    out += json[i];
  }
  return out;
}
// The reason a last-error JSON names, as its value (the library's names, read on demand).
inline mjb_reason reason_of(const std::string& json) {
  std::string name = member(json, "reason");
  for (int32_t i = 0; !name.empty() && i < 1024; i++)
    if (name == mjb_reason_name(i)) return static_cast<mjb_reason>(i);
  return MJB_REASON_NONE;
}
[[noreturn]] inline void fail(mjb_outcome o, const std::string& detail);
// Enabled for a pointer argument (a forwarding reference's type: a C array is not one).
template <typename P>
using if_pointer = std::enable_if_t<std::is_pointer_v<std::remove_reference_t<P>>>;
template <typename P>
constexpr bool always_false = false;
// A config string is a JSON document when its first character other than JSON whitespace is
// '{' (a config is an object); any other string is an MJCF file's path.
inline bool is_document(std::string_view s) noexcept {
  size_t i = s.find_first_not_of(" \t\n\r");
  return i != std::string_view::npos && s[i] == '{';
}
}  // namespace impl

#if MJB_EXCEPTIONS
class Error : public std::runtime_error {
 public:
  Error(mjb_outcome outcome, std::string detail)
      : std::runtime_error(std::string(mjb_outcome_name(outcome)) + ": " + detail),
        outcome_(outcome),
        detail_(std::move(detail)) {}
  mjb_outcome outcome() const noexcept { return outcome_; }
  mjb_reason reason() const { return impl::reason_of(detail_); }
  // The last-error JSON of the refusal.
  const std::string& detail() const noexcept { return detail_; }

 private:
  mjb_outcome outcome_;
  std::string detail_;
};
#endif

// A refusal used as a value: with exceptions it throws mjb::Error; without, the program stops
// (std::abort) after printing the refusal: check ok() first in a no-exception build.
[[noreturn]] inline void impl::fail(mjb_outcome o, const std::string& detail) {
#if MJB_EXCEPTIONS
  throw Error(o, detail);
#else
  std::fprintf(stderr, "mjbridge: the value of a refused call was used: %s: %s\n",
               mjb_outcome_name(o), detail.c_str());
  std::abort();
#endif
}

// The outcome of a call that returns nothing else (acknowledgements, settings).
class Status {
 public:
  Status() = default;
  // Record `o` for the call that just returned it on this thread.
  static Status of(mjb_outcome o) {
    Status s;
    s.outcome_ = o;
    if (o != MJB_OK) s.detail_ = last_error();
    return s;
  }
  bool ok() const noexcept { return outcome_ == MJB_OK; }
  explicit operator bool() const noexcept { return ok(); }
  mjb_outcome outcome() const noexcept { return outcome_; }
  mjb_reason reason() const { return ok() ? MJB_REASON_NONE : impl::reason_of(detail_); }
  // The last-error JSON of a refusal ("" when ok).
  const std::string& detail() const noexcept { return detail_; }
  // JSON pointer of the offending field ("" when there is none).
  std::string pointer() const { return impl::member(detail_, "pointer"); }
  // Throws mjb::Error (aborts without exceptions) unless ok.
  void value() const {
    if (!ok()) impl::fail(outcome_, detail_);
  }

 private:
  mjb_outcome outcome_ = MJB_OK;
  std::string detail_;
};

// A value, or the refusal that stood in its way.
template <typename T>
class Expected {
 public:
  Expected(T value) : value_(std::move(value)) {}  // NOLINT: implicit, like std::optional
  static Expected refused(mjb_outcome o) {
    Expected e;
    e.status_ = Status::of(o);
    return e;
  }
  bool ok() const noexcept { return value_.has_value(); }
  explicit operator bool() const noexcept { return ok(); }
  mjb_outcome outcome() const noexcept { return status_.outcome(); }
  mjb_reason reason() const { return status_.reason(); }
  const std::string& detail() const noexcept { return status_.detail(); }
  std::string pointer() const { return status_.pointer(); }
  const Status& status() const noexcept { return status_; }
  // The value; a refusal throws mjb::Error (aborts without exceptions).
  const T& value() const& {
    if (!ok()) impl::fail(outcome(), detail());
    return *value_;
  }
  T& value() & {
    if (!ok()) impl::fail(outcome(), detail());
    return *value_;
  }
  T&& value() && {
    if (!ok()) impl::fail(outcome(), detail());
    return std::move(*value_);
  }
  template <typename U>
  T value_or(U&& fallback) const& {
    return ok() ? *value_ : static_cast<T>(std::forward<U>(fallback));
  }
  // From a temporary: the value moves out (move-only values, such as a RestorePoint).
  template <typename U>
  T value_or(U&& fallback) && {
    return ok() ? std::move(*value_) : static_cast<T>(std::forward<U>(fallback));
  }
  const T* operator->() const { return &value(); }
  T* operator->() { return &value(); }
  const T& operator*() const& { return value(); }
  T& operator*() & { return value(); }

 private:
  Expected() = default;
  std::optional<T> value_;
  Status status_;
};

// The answer of a mutation: its report, and the last-error JSON when it was not plain MJB_OK.
struct Result {
  mjb_report report{};
  std::string detail;
  mjb_outcome outcome() const noexcept { return static_cast<mjb_outcome>(report.outcome); }
  mjb_reason reason() const noexcept { return static_cast<mjb_reason>(report.reason); }
  bool ok() const noexcept { return report.outcome == MJB_OK; }
  explicit operator bool() const noexcept { return ok(); }
  std::string pointer() const { return impl::member(detail, "pointer"); }
  // Throws mjb::Error (aborts without exceptions) unless ok; returns this Result.
  const Result& ensure_ok() const {
    if (!ok()) impl::fail(outcome(), detail);
    return *this;
  }
};

// A document the bridge served and where the endpoint was when it was read (mjb_read_info):
// its tick, model configuration and the endpoint's last frame number (0 for a restore point's
// document), for a mutation conditional on them (Expect::at(doc))
// without parsing. Converts to const std::string& and std::string_view wherever the text is
// wanted (code written for the std::string these reads returned keeps compiling); compares
// by its text.
struct Document {
  std::string text;
  uint64_t tick = 0;
  uint64_t configuration = 0;
  uint64_t frame = 0;

  Document() = default;
  explicit Document(std::string t, uint64_t at_tick = 0, uint64_t at_configuration = 0,
                    uint64_t at_frame = 0)
      : text(std::move(t)), tick(at_tick), configuration(at_configuration), frame(at_frame) {}
  operator const std::string&() const& noexcept { return text; }        // NOLINT: implicit
  operator std::string() && noexcept { return std::move(text); }        // NOLINT: implicit
  operator std::string_view() const noexcept { return text; }           // NOLINT: implicit
  mjb_read_info info() const noexcept { return mjb_read_info{tick, configuration, frame}; }
  const char* data() const noexcept { return text.data(); }
  size_t size() const noexcept { return text.size(); }

  friend bool operator==(const Document& a, const Document& b) { return a.text == b.text; }
  friend bool operator!=(const Document& a, const Document& b) { return a.text != b.text; }
  friend bool operator==(const Document& a, std::string_view b) { return a.text == b; }
  friend bool operator!=(const Document& a, std::string_view b) { return a.text != b; }
  friend bool operator==(std::string_view a, const Document& b) { return a == b.text; }
  friend bool operator!=(std::string_view a, const Document& b) { return a != b.text; }
};

// The precondition of a mutation (mjb_expect): where the caller expects the endpoint to be
// when the call is admitted. A default Expect checks nothing. Pass it as the first argument of
// any mutation; when it does not hold, the call is refused (MJB_REJECTED,
// MJB_REASON_PRECONDITION) and nothing is done. The compare-and-step of a controller:
//   mjb_frame_info seen = ep.frame({{MJB_FIELD_QPOS, qpos}}).value();
//   choose(qpos, ctrl);
//   mjb::Result r = ep.ctrl_step(mjb::Expect::at(seen), ctrl, 1);  // refused if moved on
// The tick says where the endpoint is, not which state it holds: a restore can land on the
// tick seen and an input write keeps it. The frame number changes with every change of the
// native state, so at() checks it too (with the tick and the configuration, for the message).
class Expect {
 public:
  Expect() = default;
  static Expect tick(uint64_t t) { return Expect().with_tick(t); }
  static Expect configuration(uint64_t c) { return Expect().with_configuration(c); }
  static Expect frame(uint64_t n) { return Expect().with_frame(n); }
  // The tick, the configuration and the frame number of what the caller saw (frame 0, a
  // restore point's document, is not checked: frames are numbered from 1).
  static Expect at(const mjb_frame_info& f) {
    return tick(f.tick).with_configuration(f.configuration).with_frame(f.frame);
  }
  static Expect at(const mjb_read_info& r) {
    Expect e = tick(r.tick).with_configuration(r.configuration);
    return r.frame != 0 ? e.with_frame(r.frame) : e;
  }
  static Expect at(const Document& d) { return at(d.info()); }
  Expect& with_tick(uint64_t t) noexcept {
    raw_.flags |= MJB_EXPECT_TICK;
    raw_.tick = t;
    return *this;
  }
  Expect& with_configuration(uint64_t c) noexcept {
    raw_.flags |= MJB_EXPECT_CONFIGURATION;
    raw_.configuration = c;
    return *this;
  }
  Expect& with_frame(uint64_t n) noexcept {
    raw_.flags |= MJB_EXPECT_FRAME;
    raw_.frame = n;
    return *this;
  }
  const mjb_expect& raw() const noexcept { return raw_; }
  const mjb_expect* get() const noexcept { return &raw_; }

 private:
  mjb_expect raw_{};
};

// A caller's contiguous array: pointer + length (C++20's std::span, for C++17); never owns.
// Everything contiguous converts to it implicitly and brings its own length: a C array
// (double ctrl[2]), a std::array, a std::vector and any container with data() and size()
// (std::span, an engine's array type). A read-only Span<const T> also takes a braced list of
// values ({0.1, -0.2}: alive until the end of the call it is passed to).
// A bare pointer carries no length, so it converts to no Span: give the length with it,
// mjb::span(ptr, n) or mjb::Span<const double>(ptr, n). That constructor is explicit for a
// read-only span, so a braced {ptr, n} cannot be confused with the braced values {x, 2.0};
// a writable span (a frame read's buffer, FieldSpan) takes no braced values and keeps the
// short form {buf, n}.
template <typename T>
class Span {
  template <typename C>
  using element_of = std::remove_pointer_t<decltype(std::declval<C&>().data())>;
  // C (a forwarding reference's type) is a contiguous container of T, other than a Span of the
  // same type; a temporary only for a read-only span (it lives until the call returns).
  template <typename C>
  using if_container = std::enable_if_t<
      !std::is_same_v<std::remove_cv_t<std::remove_reference_t<C>>, Span> &&
      std::is_convertible_v<element_of<C> (*)[], T (*)[]> &&
      std::is_convertible_v<decltype(std::declval<C&>().size()), size_t> &&
      (std::is_lvalue_reference_v<C> || std::is_const_v<T>)>;

 public:
  constexpr Span() noexcept = default;
  template <typename U = T, std::enable_if_t<!std::is_const_v<U>, int> = 0>
  constexpr Span(T* data, size_t size) noexcept : data_(data), size_(size) {}
  template <typename U = T, std::enable_if_t<std::is_const_v<U>, int> = 0>
  constexpr explicit Span(T* data, size_t size) noexcept : data_(data), size_(size) {}
  template <typename U, size_t N,
            typename = std::enable_if_t<std::is_convertible_v<U (*)[], T (*)[]>>>
  constexpr Span(U (&a)[N]) noexcept : data_(a), size_(N) {}  // NOLINT: implicit
  template <typename C, typename = if_container<C>>
  constexpr Span(C&& c) noexcept(noexcept(c.data()) && noexcept(c.size()))  // NOLINT: implicit
      : data_(c.data()), size_(static_cast<size_t>(c.size())) {}
// GCC warns that a member pointing into a list does not keep the list alive: here that is the
// point (a span of a parameter, used while the call it is passed to runs; C++26's std::span
// has the same constructor).
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 9
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winit-list-lifetime"
#endif
  template <typename U = T, std::enable_if_t<std::is_const_v<U>, int> = 0>
  constexpr Span(std::initializer_list<std::remove_const_t<U>> values) noexcept  // NOLINT
      : data_(values.begin()), size_(values.size()) {}
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 9
#pragma GCC diagnostic pop
#endif
  constexpr T* data() const noexcept { return data_; }
  constexpr size_t size() const noexcept { return size_; }
  constexpr bool empty() const noexcept { return size_ == 0; }
  constexpr T* begin() const noexcept { return data_; }
  constexpr T* end() const noexcept { return data_ + size_; }
  constexpr T& operator[](size_t i) const noexcept { return data_[i]; }

 private:
  T* data_ = nullptr;
  size_t size_ = 0;
};

// A span of `size` values at `data`: the way to pass a bare pointer, its length beside it
// (ep.ctrl_step(mjb::span(ctrl, nu), 1)).
template <typename T>
constexpr Span<T> span(T* data, size_t size) noexcept {
  return Span<T>(data, size);
}

// One field of a frame read and the caller's buffer for it.
struct FieldSpan {
  mjb_field field;
  Span<double> buf;
};

// Where a named object's values sit in one array: [start, start + size).
struct Slice {
  size_t start = 0;
  size_t size = 0;
  size_t end() const noexcept { return start + size; }
  bool operator==(const Slice& o) const noexcept { return start == o.start && size == o.size; }
};

// A JSON string literal for `s` (RFC 8259): quotes, backslashes and control characters
// escaped; UTF-8 passes through as it is.
inline std::string json_string(std::string_view s) {
  static const char hex[] = "0123456789abcdef";
  std::string out;
  out.reserve(s.size() + 2);
  out += '"';
  for (char ch : s) {
    unsigned char c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default:
        if (c < 0x20) {
          out += "\\u00";
          out += hex[c >> 4];
          out += hex[c & 15];
        } else {
          out += ch;
        }
    }
  }
  out += '"';
  return out;
}

// An endpoint config built from typed values; json() escapes every string, so a Windows path
// (C:\Users\...), quotes or non-ASCII names need nothing by hand:
//   mjb::Config::from_path(path).name("arm").seed(1).frame({MJB_FIELD_QPOS, MJB_FIELD_QVEL})
class Config {
 public:
  static Config from_path(std::string_view utf8_path) {
    Config c;
    c.model_ = "{\"xml_path\":" + json_string(utf8_path) + "}";
    return c;
  }
  static Config from_xml(std::string_view xml) {
    Config c;
    c.model_ = "{\"xml\":" + json_string(xml) + "}";
    return c;
  }
  Config& name(std::string_view n) {
    name_ = json_string(n);
    return *this;
  }
  Config& seed(uint64_t s) {
    seed_ = std::to_string(s);
    return *this;
  }
  // "auto", "mujoco_integration_v1" or "mujoco_basic_v1".
  Config& profile(std::string_view p) {
    profile_ = json_string(p);
    return *this;
  }
  // The fields frames carry (the bridge's default selection when never called).
  Config& frame(std::initializer_list<mjb_field> fields) {
    frame_.assign(fields.begin(), fields.end());
    has_frame_ = true;
    return *this;
  }
  // "every_step" or "end_of_call".
  Config& publish(std::string_view when) {
    publish_ = json_string(when);
    return *this;
  }
  // A fidelity declaration, as a JSON object written as given.
  Config& fidelity_json(std::string_view object) {
    fidelity_ = std::string(object);
    return *this;
  }
  // A history (rewind, export): the last `window_ticks` ticks, a keyframe every
  // `keyframe_every` (docs/contract.md, "History and rewind").
  Config& history(uint64_t window_ticks, uint64_t keyframe_every) {
    history_ = "{\"window_ticks\":" + std::to_string(window_ticks) +
               ",\"keyframe_every\":" + std::to_string(keyframe_every) + "}";
    return *this;
  }
  // {"model": {...}} alone: what Endpoint::replace_model takes.
  std::string model_json() const { return "{\"model\":" + model_ + "}"; }
  std::string json() const {
    std::string j = "{\"model\":" + model_;
    if (!name_.empty()) j += ",\"name\":" + name_;
    if (!seed_.empty()) j += ",\"seed\":" + seed_;
    if (!profile_.empty()) j += ",\"profile\":" + profile_;
    if (has_frame_ || !publish_.empty()) {
      std::string fields = "[";
      for (size_t i = 0; i < frame_.size(); i++) {
        const char* n = mjb_field_name(frame_[i]);
        fields += (i ? "," : "") + json_string(n ? n : "");
      }
      fields += "]";
      j += ",\"frame\":";
      if (publish_.empty()) {
        j += fields;
      } else {
        j += "{\"publish\":" + publish_ + (has_frame_ ? ",\"fields\":" + fields : "") + "}";
      }
    }
    if (!fidelity_.empty()) j += ",\"fidelity\":" + fidelity_;
    if (!history_.empty()) j += ",\"history\":" + history_;
    return j + "}";
  }

 private:
  std::string model_, name_, seed_, profile_, publish_, fidelity_, history_;
  std::vector<mjb_field> frame_;
  bool has_frame_ = false;
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

inline Expected<std::string> build_info() {
  mjb_string* s = nullptr;
  mjb_outcome o = mjb_build_info(&s);
  if (o != MJB_OK) return Expected<std::string>::refused(o);
  return take(s);
}

// The name of a frame/input field ("qpos", ...); empty for an unknown value.
inline std::string field_name(mjb_field f) {
  const char* n = mjb_field_name(f);
  return n ? n : "";
}

// Plugin libraries (process-wide, permanent).
inline Expected<size_t> plugin_load(const std::string& path) {
  size_t plugins = 0;
  mjb_outcome o = mjb_plugin_load(path.c_str(), &plugins);
  if (o != MJB_OK) return Expected<size_t>::refused(o);
  return plugins;
}
struct PluginCount {
  size_t libraries = 0;
  size_t plugins = 0;
};
inline Expected<PluginCount> plugin_load_dir(const std::string& dir) {
  PluginCount c;
  mjb_outcome o = mjb_plugin_load_dir(dir.c_str(), &c.libraries, &c.plugins);
  if (o != MJB_OK) return Expected<PluginCount>::refused(o);
  return c;
}

// The process's log callback (see mjb_set_log_callback): called on the thread whose call
// produced the message, outside every lock. An empty function removes it.
using LogFn = std::function<void(mjb_log_level, std::string_view)>;
inline Status set_log_callback(LogFn fn, mjb_log_level min_level = MJB_LOG_WARNING) {
  static std::mutex lock;
  static std::unique_ptr<LogFn> current;
  std::lock_guard<std::mutex> guard(lock);
  std::unique_ptr<LogFn> next = fn ? std::make_unique<LogFn>(std::move(fn)) : nullptr;
  auto trampoline = [](void* user, int32_t level, const char* message) {
    (*static_cast<LogFn*>(user))(static_cast<mjb_log_level>(level), message);
  };
  mjb_outcome o = mjb_set_log_callback(next ? +trampoline : nullptr, next.get(), min_level);
  if (o != MJB_OK) return Status::of(o);
  // The bridge no longer calls the previous function: it may go.
  current = std::move(next);
  return Status();
}

class Endpoint;

// Where each named joint, actuator and sensor sits in qpos, qvel, ctrl and sensordata, read
// once (Endpoint::index()): a joint-state publisher or a rig looks a joint up by name. Unnamed
// objects are not listed; an unknown name gives nullopt. Describes one model configuration:
// make a new index after replace_model.
class ModelIndex {
 public:
  std::optional<Slice> qpos(std::string_view joint) const { return find(qpos_, joint); }
  std::optional<Slice> qvel(std::string_view joint) const { return find(qvel_, joint); }
  std::optional<Slice> ctrl(std::string_view actuator) const { return find(ctrl_, actuator); }
  std::optional<Slice> sensordata(std::string_view sensor) const {
    return find(sensor_, sensor);
  }
  const std::vector<std::string>& joints() const noexcept { return joints_; }
  const std::vector<std::string>& actuators() const noexcept { return actuators_; }
  const std::vector<std::string>& sensors() const noexcept { return sensors_; }
  uint64_t configuration() const noexcept { return configuration_; }

 private:
  friend class Endpoint;
  using Table = std::map<std::string, Slice, std::less<>>;
  static std::optional<Slice> find(const Table& t, std::string_view name) {
    auto it = t.find(name);
    if (it == t.end()) return std::nullopt;
    return it->second;
  }
  Table qpos_, qvel_, ctrl_, sensor_;
  std::vector<std::string> joints_, actuators_, sensors_;
  uint64_t configuration_ = 0;
};

// A restore point (mjb_restore_point): a state captured by Endpoint::capture() or read once
// from a checkpoint by Endpoint::restore_point_from_json(), restored by Endpoint::apply()
// without any JSON, with every check of a restore. Move-only; the destructor frees it (a
// moved-from or reset() one holds nothing). Immutable: it may be applied to its endpoint, and
// read, from any thread at once; another endpoint refuses it (MJB_REASON_OTHER_ENDPOINT), and
// so does its own after a model replacement (MJB_REASON_CONFIGURATION).
class RestorePoint {
 public:
  RestorePoint() = default;
  // Take ownership of a restore point made through the C ABI.
  explicit RestorePoint(mjb_restore_point* owned) noexcept : rp_(owned) {}
  RestorePoint(const RestorePoint&) = delete;
  RestorePoint& operator=(const RestorePoint&) = delete;
  RestorePoint(RestorePoint&& other) noexcept : rp_(std::exchange(other.rp_, nullptr)) {}
  RestorePoint& operator=(RestorePoint&& other) noexcept {
    if (this != &other) {
      reset();
      rp_ = std::exchange(other.rp_, nullptr);
    }
    return *this;
  }
  ~RestorePoint() { reset(); }

  // Free it now (also done by the destructor). Safe to call twice, and while another thread
  // applies it (that call finishes with it).
  void reset() noexcept {
    if (rp_) mjb_restore_point_free(std::exchange(rp_, nullptr));
  }
  // The C handle, still owned by this object; release() gives ownership up.
  const mjb_restore_point* get() const noexcept { return rp_; }
  mjb_restore_point* release() noexcept { return std::exchange(rp_, nullptr); }
  explicit operator bool() const noexcept { return rp_ != nullptr; }

  // The tick it restores and the model configuration it belongs to. No lock.
  Expected<mjb_read_info> info() const {
    mjb_read_info i{};
    mjb_outcome o = mjb_restore_point_info(rp_, &i);
    if (o != MJB_OK) return Expected<mjb_read_info>::refused(o);
    return i;
  }
  // Its checkpoint document: byte for byte what checkpoint() returned at the capture, with
  // the restore point's tick and configuration. No lock.
  Expected<Document> to_json() const {
    auto i = info();
    if (!i) return Expected<Document>::refused(i.outcome());
    mjb_string* s = nullptr;
    mjb_outcome o = mjb_restore_point_to_json(rp_, &s);
    if (o != MJB_OK) return Expected<Document>::refused(o);
    return Document(take(s), i->tick, i->configuration, i->frame);
  }

 private:
  mjb_restore_point* rp_ = nullptr;
};

// A prepared frame reader (mjb_frame_reader): fields and buffers checked once by
// Endpoint::frame_reader(), then read() copies the latest frame into those buffers with no
// checks and no lock. The buffers stay the caller's and must outlive the reader. Move-only;
// the destructor frees it. One thread at a time per reader (read and reset); readers of one
// endpoint on different threads read concurrently. After a model replacement read() is
// refused (MJB_REASON_CONFIGURATION), after the endpoint closes too (MJB_REASON_CLOSED).
class FrameReader {
 public:
  FrameReader() = default;
  // Take ownership of a reader made through the C ABI.
  explicit FrameReader(mjb_frame_reader* owned) noexcept : fr_(owned) {}
  FrameReader(const FrameReader&) = delete;
  FrameReader& operator=(const FrameReader&) = delete;
  FrameReader(FrameReader&& other) noexcept : fr_(std::exchange(other.fr_, nullptr)) {}
  FrameReader& operator=(FrameReader&& other) noexcept {
    if (this != &other) {
      reset();
      fr_ = std::exchange(other.fr_, nullptr);
    }
    return *this;
  }
  ~FrameReader() { reset(); }

  // Free it now (also done by the destructor); safe to call twice.
  void reset() noexcept {
    if (fr_) mjb_frame_reader_free(std::exchange(fr_, nullptr));
  }
  mjb_frame_reader* get() const noexcept { return fr_; }
  mjb_frame_reader* release() noexcept { return std::exchange(fr_, nullptr); }
  explicit operator bool() const noexcept { return fr_ != nullptr; }

  // Copy the latest complete frame into the buffers given at frame_reader(). Allocates
  // nothing.
  Expected<mjb_frame_info> read() const {
    mjb_frame_info info{};
    mjb_outcome o = mjb_frame_reader_read(fr_, &info);
    if (o != MJB_OK) return Expected<mjb_frame_info>::refused(o);
    return info;
  }

 private:
  mjb_frame_reader* fr_ = nullptr;
};

class Endpoint {
 public:
  // Load a model per `config`, without throwing: a config document (see mjb_endpoint_open)
  // when its first character other than JSON whitespace is '{', else the path of an MJCF file
  // ({"model": {"xml_path": config}}, escaped for you): open("robot.xml") and
  // open(R"({"model": {"xml_path": "robot.xml"}, "seed": 1})") both load robot.xml.
  // (A file whose path starts with '{' goes through Config::from_path.)
  static Expected<Endpoint> try_open(std::string_view config) {
    if (!impl::is_document(config)) return try_open(Config::from_path(config).json());
    mjb_endpoint* ep = nullptr;
    mjb_outcome o = mjb_endpoint_open(config.data(), config.size(), &ep);
    if (o != MJB_OK) return Expected<Endpoint>::refused(o);
    return Endpoint(ep);
  }
  static Expected<Endpoint> try_open(const Config& config) { return try_open(config.json()); }

#if MJB_EXCEPTIONS
  // Load a model; throws mjb::Error on refusal.
  static Endpoint open(std::string_view config) { return try_open(config).value(); }
  static Endpoint open(const Config& config) { return try_open(config).value(); }
#endif

  // Take ownership of a host's model/data; on refusal the host still owns them. `config_json`
  // is read as try_open reads it (a path there names a model, which adopt refuses).
  static Expected<Endpoint> try_adopt(struct mjModel_* model, struct mjData_* data,
                                      std::string_view config_json) {
    if (!impl::is_document(config_json))
      return try_adopt(model, data, Config::from_path(config_json).json());
    mjb_endpoint* ep = nullptr;
    mjb_outcome o =
        mjb_endpoint_adopt(model, data, config_json.data(), config_json.size(), &ep);
    if (o != MJB_OK) return Expected<Endpoint>::refused(o);
    return Endpoint(ep);
  }
#if MJB_EXCEPTIONS
  static Endpoint adopt(struct mjModel_* model, struct mjData_* data,
                        std::string_view config_json) {
    return try_adopt(model, data, config_json).value();
  }
#endif

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

  // ---- mutations: a Result, never an exception ----------------------------------------------
  // Each mutation has one implementation, its mjb_*_if form (below): the overload without a
  // precondition passes Expect(), no flags, which checks nothing and is the plain export's
  // call exactly (mjb_endpoint_step for step: mjb_step under the name MuJoCo 4.0's batch API
  // does not also export).

  Result step(uint32_t nstep, uint32_t timeout_ms = MJB_WAIT_FOREVER) {
    return step(Expect(), nstep, timeout_ms);
  }
  // Inputs come as an mjb::Span: a C array, std::array, std::vector or braced values give
  // their own length; a bare pointer goes as mjb::span(ptr, n) (see Span, and the overloads
  // taking a pointer below, which stop the build).
  Result set_ctrl(Span<const double> ctrl, uint32_t timeout_ms = MJB_WAIT_FOREVER) {
    return set_ctrl(Expect(), ctrl, timeout_ms);
  }
  Result world_write(std::string_view json, uint32_t timeout_ms = MJB_WAIT_FOREVER) {
    return world_write(Expect(), json, timeout_ms);
  }
  Result restore(std::string_view checkpoint, uint32_t timeout_ms = MJB_WAIT_FOREVER) {
    return restore(Expect(), checkpoint, timeout_ms);
  }
  // Typed inputs: one field, whole (id -1) or one object's slice.
  Result input(mjb_field field, int32_t id, Span<const double> values,
               uint32_t timeout_ms = MJB_WAIT_FOREVER) {
    return input(Expect(), field, id, values, timeout_ms);
  }
  // The hot loop: write inputs then step, under one admission.
  Result write_step(Span<const mjb_input> inputs, uint32_t nstep,
                    uint32_t timeout_ms = MJB_WAIT_FOREVER) {
    return write_step(Expect(), inputs, nstep, timeout_ms);
  }
  // ctrl (all of it: the span's length is the model's nu), then `nstep` steps.
  Result ctrl_step(Span<const double> ctrl, uint32_t nstep = 1,
                   uint32_t timeout_ms = MJB_WAIT_FOREVER) {
    return ctrl_step(Expect(), ctrl, nstep, timeout_ms);
  }
  // Write inputs, step, then read frame fields into the requests' buffers, in one call
  // (mjb_write_step_read). `info` (nullable) receives the frame's info.
  Result write_step_read(Span<const mjb_input> inputs, uint32_t nstep,
                         Span<mjb_frame_request> requests, mjb_frame_info* info,
                         uint32_t timeout_ms = MJB_WAIT_FOREVER) {
    return write_step_read(Expect(), inputs, nstep, requests, info, timeout_ms);
  }
  // The loop of a controller in one call: ctrl in, `nstep` steps, fields out into the caller's
  // spans. Allocates nothing unless refused.
  Result ctrl_step_read(Span<const double> ctrl, uint32_t nstep,
                        std::initializer_list<FieldSpan> read, mjb_frame_info* info = nullptr,
                        uint32_t timeout_ms = MJB_WAIT_FOREVER) {
    return ctrl_step_read(Expect(), ctrl, nstep, read, info, timeout_ms);
  }

  // `config_json`: {"model": {...}} (a document: '{' first), or an MJCF file's path.
  Result replace_model(std::string_view config_json, uint32_t timeout_ms = MJB_WAIT_FOREVER) {
    return replace_model(Expect(), config_json, timeout_ms);
  }
  // The Config's model alone (a replacement takes nothing else).
  Result replace_model(const Config& config, uint32_t timeout_ms = MJB_WAIT_FOREVER) {
    return replace_model(config.model_json(), timeout_ms);
  }

  // Restore a restore point of this endpoint: the restore's admission, fence, stop rules and
  // native phase (setter, bitwise readback, rollback or fence), without a document. Allocates
  // nothing unless refused.
  // The exact state at `tick` of the endpoint's history (config "history"): refused with
  // MJB_REASON_OUT_OF_RANGE outside the window (history()), rolled back with
  // MJB_REASON_REPLAY_DIVERGED when the replay does not reproduce the recording, with
  // MJB_REASON_STOP_LATCHED when a stop latched meanwhile halted it.
  Result rewind(uint64_t tick, uint32_t timeout_ms = MJB_WAIT_FOREVER) {
    return rewind(Expect(), tick, timeout_ms);
  }
  Result apply(const RestorePoint& rp, uint32_t timeout_ms = MJB_WAIT_FOREVER) {
    return apply(Expect(), rp, timeout_ms);
  }

  // ---- the same mutations with a precondition (mjb_*_if): refused with
  // MJB_REASON_PRECONDITION and nothing done unless the endpoint is where `expect` says ------

  Result step(const Expect& expect, uint32_t nstep, uint32_t timeout_ms = MJB_WAIT_FOREVER) {
    return answer([&](mjb_report* r) {
      return mjb_step_if(ep_, expect.get(), nstep, timeout_ms, r);
    });
  }
  Result set_ctrl(const Expect& expect, Span<const double> ctrl,
                  uint32_t timeout_ms = MJB_WAIT_FOREVER) {
    return answer([&](mjb_report* r) {
      return mjb_set_ctrl_if(ep_, expect.get(), ctrl.data(), ctrl.size(), timeout_ms, r);
    });
  }
  Result world_write(const Expect& expect, std::string_view json,
                     uint32_t timeout_ms = MJB_WAIT_FOREVER) {
    return answer([&](mjb_report* r) {
      return mjb_world_write_if(ep_, expect.get(), json.data(), json.size(), timeout_ms, r);
    });
  }
  Result restore(const Expect& expect, std::string_view checkpoint,
                 uint32_t timeout_ms = MJB_WAIT_FOREVER) {
    return answer([&](mjb_report* r) {
      return mjb_restore_if(ep_, expect.get(), checkpoint.data(), checkpoint.size(), timeout_ms,
                            r);
    });
  }
  Result input(const Expect& expect, mjb_field field, int32_t id, Span<const double> values,
               uint32_t timeout_ms = MJB_WAIT_FOREVER) {
    return answer([&](mjb_report* r) {
      return mjb_input_write_if(ep_, expect.get(), field, id, values.data(), values.size(),
                                timeout_ms, r);
    });
  }
  // The controller's compare-and-step: inputs chosen for the tick in `expect` are written and
  // stepped only if the endpoint is still there.
  Result write_step(const Expect& expect, Span<const mjb_input> inputs, uint32_t nstep,
                    uint32_t timeout_ms = MJB_WAIT_FOREVER) {
    return answer([&](mjb_report* r) {
      return mjb_write_step_if(ep_, expect.get(), inputs.data(), inputs.size(), nstep,
                               timeout_ms, r);
    });
  }
  Result ctrl_step(const Expect& expect, Span<const double> ctrl, uint32_t nstep = 1,
                   uint32_t timeout_ms = MJB_WAIT_FOREVER) {
    mjb_input in{MJB_FIELD_CTRL, -1, ctrl.data(), ctrl.size()};
    return write_step(expect, Span<const mjb_input>(&in, 1), nstep, timeout_ms);
  }
  // write_step_read with a precondition (mjb_write_step_read_if): the compare-and-step of a
  // host loop in one call. Refused with nothing written, no step and no frame read when the
  // endpoint moved on (or a request cannot be served).
  Result write_step_read(const Expect& expect, Span<const mjb_input> inputs, uint32_t nstep,
                         Span<mjb_frame_request> requests, mjb_frame_info* info,
                         uint32_t timeout_ms = MJB_WAIT_FOREVER) {
    return answer([&](mjb_report* r) {
      return mjb_write_step_read_if(ep_, expect.get(), inputs.data(), inputs.size(), nstep,
                                    timeout_ms, requests.data(), requests.size(), info, r);
    });
  }
  Result ctrl_step_read(const Expect& expect, Span<const double> ctrl, uint32_t nstep,
                        std::initializer_list<FieldSpan> read, mjb_frame_info* info = nullptr,
                        uint32_t timeout_ms = MJB_WAIT_FOREVER) {
    std::array<mjb_frame_request, 64> reqs{};
    size_t n = requests(read, reqs);  // more than 64: refused by the library, nothing done
    mjb_input in{MJB_FIELD_CTRL, -1, ctrl.data(), ctrl.size()};
    return write_step_read(expect, Span<const mjb_input>(&in, 1), nstep,
                           Span<mjb_frame_request>(reqs.data(), n), info, timeout_ms);
  }
  Result replace_model(const Expect& expect, std::string_view config_json,
                       uint32_t timeout_ms = MJB_WAIT_FOREVER) {
    if (!impl::is_document(config_json))
      return replace_model(expect, Config::from_path(config_json).model_json(), timeout_ms);
    return answer([&](mjb_report* r) {
      return mjb_endpoint_replace_model_if(ep_, expect.get(), config_json.data(),
                                           config_json.size(), timeout_ms, r);
    });
  }
  Result replace_model(const Expect& expect, const Config& config,
                       uint32_t timeout_ms = MJB_WAIT_FOREVER) {
    return replace_model(expect, config.model_json(), timeout_ms);
  }
  Result apply(const Expect& expect, const RestorePoint& rp,
               uint32_t timeout_ms = MJB_WAIT_FOREVER) {
    return answer([&](mjb_report* r) {
      return mjb_restore_point_apply_if(ep_, expect.get(), rp.get(), timeout_ms, r);
    });
  }
  Result rewind(const Expect& expect, uint64_t tick, uint32_t timeout_ms = MJB_WAIT_FOREVER) {
    return answer([&](mjb_report* r) {
      return mjb_rewind_if(ep_, expect.get(), tick, timeout_ms, r);
    });
  }

  // ---- a bare pointer where a span goes: these stop the build --------------------------------
  // The calls of earlier versions, ctrl_step(ptr, n, nstep) and the like, and any call with a
  // pointer where the inputs go, bind here and fail to compile with a static_assert naming
  // mjb::span(ptr, n); no such call compiles into something else. (A C array, std::array or
  // std::vector there is a span with its own length: see Span.)
  template <typename P, typename... Rest, typename = impl::if_pointer<P>>
  Result set_ctrl(P&&, Rest&&...) {
    return pointer_without_length<P>();
  }
  template <typename P, typename... Rest, typename = impl::if_pointer<P>>
  Result set_ctrl(const Expect&, P&&, Rest&&...) {
    return pointer_without_length<P>();
  }
  template <typename P, typename... Rest, typename = impl::if_pointer<P>>
  Result input(mjb_field, int32_t, P&&, Rest&&...) {
    return pointer_without_length<P>();
  }
  template <typename P, typename... Rest, typename = impl::if_pointer<P>>
  Result input(const Expect&, mjb_field, int32_t, P&&, Rest&&...) {
    return pointer_without_length<P>();
  }
  template <typename P, typename... Rest, typename = impl::if_pointer<P>>
  Result write_step(P&&, Rest&&...) {
    return pointer_without_length<P>();
  }
  template <typename P, typename... Rest, typename = impl::if_pointer<P>>
  Result write_step(const Expect&, P&&, Rest&&...) {
    return pointer_without_length<P>();
  }
  template <typename P, typename... Rest, typename = impl::if_pointer<P>>
  Result ctrl_step(P&&, Rest&&...) {
    return pointer_without_length<P>();
  }
  template <typename P, typename... Rest, typename = impl::if_pointer<P>>
  Result ctrl_step(const Expect&, P&&, Rest&&...) {
    return pointer_without_length<P>();
  }
  template <typename P, typename... Rest, typename = impl::if_pointer<P>>
  Result write_step_read(P&&, Rest&&...) {
    return pointer_without_length<P>();
  }
  template <typename P, typename... Rest, typename = impl::if_pointer<P>>
  Result write_step_read(const Expect&, P&&, Rest&&...) {
    return pointer_without_length<P>();
  }

  // ---- restore points -----------------------------------------------------------------------

  // Capture the state the endpoint's profile restores, under the native lock (no JSON).
  Expected<RestorePoint> capture(uint32_t timeout_ms = MJB_WAIT_FOREVER) const {
    mjb_restore_point* rp = nullptr;
    mjb_outcome o = mjb_restore_point_capture(ep_, timeout_ms, &rp);
    if (o != MJB_OK) return Expected<RestorePoint>::refused(o);
    return RestorePoint(rp);
  }
  // A restore point of this endpoint from a checkpoint or world document, validated exactly as
  // restore() validates it, restoring nothing: load a saved state once, apply it often. No lock.
  Expected<RestorePoint> restore_point_from_json(std::string_view json) const {
    mjb_restore_point* rp = nullptr;
    mjb_outcome o = mjb_restore_point_from_json(ep_, json.data(), json.size(), &rp);
    if (o != MJB_OK) return Expected<RestorePoint>::refused(o);
    return RestorePoint(rp);
  }

  // ---- documents ----------------------------------------------------------------------------

  // Each document with the tick and model configuration it was read at (mjb_*_info).
  Expected<Document> world(uint32_t timeout_ms = MJB_WAIT_FOREVER) const {
    return read(mjb_world_read_info, timeout_ms);
  }
  Expected<Document> snapshot(uint32_t timeout_ms = MJB_WAIT_FOREVER) const {
    return read(mjb_world_read_info, timeout_ms);  // mjb_snapshot_info is deprecated: the same call
  }
  Expected<Document> checkpoint(uint32_t timeout_ms = MJB_WAIT_FOREVER) const {
    return read(mjb_checkpoint_read_info, timeout_ms);
  }

  // ---- model facts and names: no lock -------------------------------------------------------

  Expected<mjb_model_dims> dims() const {
    mjb_model_dims d{};
    mjb_outcome o = mjb_dims(ep_, &d);
    if (o != MJB_OK) return Expected<mjb_model_dims>::refused(o);
    return d;
  }
  // An unknown name is refused with MJB_REASON_UNKNOWN_NAME.
  Expected<int32_t> name_to_id(mjb_object_kind kind, const std::string& name) const {
    int32_t id = -1;
    mjb_outcome o = mjb_name_to_id(ep_, kind, name.c_str(), &id);
    if (o != MJB_OK) return Expected<int32_t>::refused(o);
    return id;
  }
  // The model's identity, "sha256:<hex>" (the world document's model_fingerprint): models
  // with the same dimensions and other parameters differ. No lock.
  Expected<std::string> model_fingerprint() const {
    char buf[128];
    size_t needed = 0;
    mjb_outcome o = mjb_model_fingerprint(ep_, buf, sizeof buf, &needed);
    if (o == MJB_OK) return std::string(buf, needed - 1);
    if (needed <= sizeof buf) return Expected<std::string>::refused(o);
    std::string big(needed, '\0');
    o = mjb_model_fingerprint(ep_, big.data(), big.size(), &needed);
    if (o != MJB_OK) return Expected<std::string>::refused(o);
    big.resize(needed - 1);
    return big;
  }
  Expected<std::string> id_to_name(mjb_object_kind kind, int32_t id) const {
    size_t needed = 0;
    mjb_outcome o = mjb_id_to_name(ep_, kind, id, nullptr, 0, &needed);
    if (needed == 0) return Expected<std::string>::refused(o);
    std::string name(needed, '\0');
    o = mjb_id_to_name(ep_, kind, id, name.data(), name.size(), &needed);
    if (o != MJB_OK) return Expected<std::string>::refused(o);
    name.resize(needed - 1);
    return name;
  }
  // Where sensor `sensor` sits in sensordata.
  Expected<Slice> sensor_slice(int32_t sensor) const {
    Slice s;
    mjb_outcome o = mjb_sensor_slice(ep_, sensor, &s.start, &s.size);
    if (o != MJB_OK) return Expected<Slice>::refused(o);
    return s;
  }
  Expected<mjb_joint_adr> joint_slice(int32_t joint) const {
    mjb_joint_adr s{};
    mjb_outcome o = mjb_joint_slice(ep_, joint, &s);
    if (o != MJB_OK) return Expected<mjb_joint_adr>::refused(o);
    return s;
  }
  // Name-based slices of qpos, qvel, ctrl and sensordata (see ModelIndex).
  Expected<ModelIndex> index() const {
    auto d = dims();
    if (!d) return Expected<ModelIndex>::refused(d.outcome());
    ModelIndex idx;
    idx.configuration_ = d->configuration;
    for (int32_t j = 0; j < d->njnt; j++) {
      // Each refusal is answered before the next call (which would clear the thread's
      // last error, and with it the refusal's detail).
      auto name = id_to_name(MJB_OBJ_JOINT, j);
      if (!name) return Expected<ModelIndex>::refused(name.outcome());
      auto adr = joint_slice(j);
      if (!adr) return Expected<ModelIndex>::refused(adr.outcome());
      if (name->empty()) continue;
      idx.joints_.push_back(*name);
      idx.qpos_[*name] = Slice{size_t(adr->qpos_adr), size_t(adr->qpos_len)};
      idx.qvel_[*name] = Slice{size_t(adr->dof_adr), size_t(adr->dof_len)};
    }
    for (int32_t u = 0; u < d->nu; u++) {
      auto name = id_to_name(MJB_OBJ_ACTUATOR, u);
      if (!name) return Expected<ModelIndex>::refused(name.outcome());
      if (name->empty()) continue;
      idx.actuators_.push_back(*name);
      idx.ctrl_[*name] = Slice{size_t(u), 1};
    }
    for (int32_t s = 0; s < d->nsensor; s++) {
      auto name = id_to_name(MJB_OBJ_SENSOR, s);
      if (!name) return Expected<ModelIndex>::refused(name.outcome());
      auto sl = sensor_slice(s);
      if (!sl) return Expected<ModelIndex>::refused(sl.outcome());
      if (name->empty()) continue;
      idx.sensors_.push_back(*name);
      idx.sensor_[*name] = *sl;
    }
    return idx;
  }

  // ---- frames: no lock, never torn ----------------------------------------------------------

  Expected<size_t> frame_field_len(mjb_field field) const {
    size_t n = 0;
    mjb_outcome o = mjb_frame_field_len(ep_, field, &n);
    if (o != MJB_OK) return Expected<size_t>::refused(o);
    return n;
  }
  // One field into the caller's span (at least the field's length). Allocates nothing unless
  // refused.
  Expected<mjb_frame_info> frame(mjb_field field, Span<double> out) const {
    mjb_frame_info info{};
    size_t written = 0;
    mjb_outcome o = mjb_frame_read(ep_, field, out.data(), out.size(), &written, &info);
    if (o != MJB_OK) return Expected<mjb_frame_info>::refused(o);
    return info;
  }
  // Several fields of one frame (one tick) into the caller's spans, e.g.
  //   ep.frame({{MJB_FIELD_QPOS, {qpos, nq}}, {MJB_FIELD_QVEL, qvel_vector}})
  // Allocates nothing unless refused.
  Expected<mjb_frame_info> frame(std::initializer_list<FieldSpan> fields) const {
    std::array<mjb_frame_request, 64> reqs{};
    size_t n = requests(fields, reqs);
    mjb_frame_info info{};
    // More than 64 fields: the library refuses the count before it reads any request.
    mjb_outcome o = mjb_frame_read_many(ep_, reqs.data(), n, &info);
    if (o != MJB_OK) return Expected<mjb_frame_info>::refused(o);
    return info;
  }
  // A prepared reader of these fields into these spans (each at least the field's length;
  // they must outlive the reader), for a host that reads the same fields every frame:
  //   auto fr = ep.frame_reader({{MJB_FIELD_QPOS, {qpos, nq}}}); ... fr->read();
  Expected<FrameReader> frame_reader(std::initializer_list<FieldSpan> fields) const {
    std::array<mjb_frame_request, 64> reqs{};
    size_t n = requests(fields, reqs);
    mjb_frame_reader* fr = nullptr;
    mjb_outcome o = mjb_frame_reader_new(ep_, reqs.data(), n, &fr);
    if (o != MJB_OK) return Expected<FrameReader>::refused(o);
    return FrameReader(fr);
  }
  // Convenience: into vectors, resized to each field's length (allocates when they grow).
  Expected<mjb_frame_info> frame(mjb_field field, std::vector<double>& out) const {
    auto n = frame_field_len(field);
    if (!n) return Expected<mjb_frame_info>::refused(n.outcome());
    out.resize(*n);
    return frame(field, Span<double>(out));
  }
  Expected<mjb_frame_info> frame(
      std::initializer_list<std::pair<mjb_field, std::vector<double>*>> fields) const {
    std::array<mjb_frame_request, 64> reqs{};
    if (fields.size() > reqs.size()) {
      mjb_frame_info info{};
      return Expected<mjb_frame_info>::refused(
          mjb_frame_read_many(ep_, reqs.data(), fields.size(), &info));
    }
    size_t k = 0;
    for (auto& f : fields) {
      auto n = frame_field_len(f.first);
      if (!n) return Expected<mjb_frame_info>::refused(n.outcome());
      f.second->resize(*n);
      reqs[k++] = {f.first, f.second->data(), f.second->size(), 0};
    }
    mjb_frame_info info{};
    mjb_outcome o = mjb_frame_read_many(ep_, reqs.data(), k, &info);
    if (o != MJB_OK) return Expected<mjb_frame_info>::refused(o);
    return info;
  }

  // ---- safety: none of these waits for the native lock --------------------------------------

  Expected<mjb_safety_state> stop() {
    mjb_safety_state s{};
    mjb_outcome o = mjb_stop(ep_, &s);
    if (o != MJB_OK) return Expected<mjb_safety_state>::refused(o);
    return s;
  }
  Expected<mjb_safety_state> safety() const {
    mjb_safety_state s{};
    mjb_outcome o = mjb_safety_read(ep_, &s);
    if (o != MJB_OK) return Expected<mjb_safety_state>::refused(o);
    return s;
  }
  // The history's window (oldest/newest tick), keyframes and bytes; no lock. Refused
  // (MJB_REASON_OUT_OF_RANGE) on an endpoint without "history".
  Expected<mjb_history_state> history() const {
    mjb_history_state s{};
    mjb_outcome o = mjb_history_info(ep_, &s);
    if (o != MJB_OK) return Expected<mjb_history_state>::refused(o);
    return s;
  }
  // Ticks from_tick..=to_tick of the history window as a recording document
  // (mjbridge_recording_v1, strict JSON) that `mjbridge replay` re-executes and verifies;
  // to_tick = UINT64_MAX: the newest tick. A read under the native lock: it changes nothing
  // and works on a stopped or fenced endpoint. Refused (MJB_REASON_OUT_OF_RANGE) outside the
  // window or without "history".
  Expected<std::string> history_export(uint64_t from_tick, uint64_t to_tick = UINT64_MAX,
                                       uint32_t timeout_ms = MJB_WAIT_FOREVER) const {
    mjb_string* s = nullptr;
    mjb_outcome o = mjb_history_export(ep_, from_tick, to_tick, timeout_ms, &s);
    if (o != MJB_OK) return Expected<std::string>::refused(o);
    return take(s);
  }
  // The whole history window as a recording document, its oldest and newest tick decided
  // under the lock the export holds (mjb_history_export_window): a thread stepping meanwhile
  // cannot slide the window from under it, as it can between history() and
  // history_export(oldest_tick). Refused (MJB_REASON_OUT_OF_RANGE) without "history" or
  // before anything was recorded.
  Expected<std::string> history_export() const { return history_export_window(); }
  Expected<std::string> history_export_window(uint32_t timeout_ms = MJB_WAIT_FOREVER) const {
    mjb_string* s = nullptr;
    mjb_outcome o = mjb_history_export_window(ep_, timeout_ms, &s);
    if (o != MJB_OK) return Expected<std::string>::refused(o);
    return take(s);
  }
  // Refused (MJB_REASON_NOT_STOPPED, ..._UNRESOLVED_NATIVE_WORK, MJB_FENCED) unless stopped,
  // idle and not fenced.
  Status confirm_paused() { return Status::of(mjb_confirm_paused(ep_)); }
  Status safety_reset() { return Status::of(mjb_safety_reset(ep_)); }

 private:
  explicit Endpoint(mjb_endpoint* ep) noexcept : ep_(ep) {}

  template <typename P>
  static Result pointer_without_length() {
    static_assert(impl::always_false<P>,
                  "mjbridge: a pointer does not say how many values it points to: pass "
                  "mjb::span(ptr, n) (a C array, std::array or std::vector carries its length)");
    return Result();
  }

  template <typename F>
  static Result answer(F&& call) {
    Result res;
    mjb_outcome o = call(&res.report);
    if (o != MJB_OK || res.report.reason != MJB_REASON_NONE) res.detail = last_error();
    return res;
  }

  // Requests for `fields` in `reqs`; returns how many fields there are (more than fit: the
  // caller refuses through the library, which names the limit).
  static size_t requests(std::initializer_list<FieldSpan> fields,
                         std::array<mjb_frame_request, 64>& reqs) {
    if (fields.size() > reqs.size()) return fields.size();
    size_t k = 0;
    for (const FieldSpan& f : fields) reqs[k++] = {f.field, f.buf.data(), f.buf.size(), 0};
    return k;
  }

  Expected<Document> read(
      mjb_outcome (*f)(mjb_endpoint*, uint32_t, mjb_string**, mjb_read_info*),
      uint32_t timeout_ms) const {
    mjb_string* s = nullptr;
    mjb_read_info info{};
    mjb_outcome o = f(ep_, timeout_ms, &s, &info);
    if (o != MJB_OK) return Expected<Document>::refused(o);
    return Document(take(s), info.tick, info.configuration, info.frame);
  }

  mjb_endpoint* ep_ = nullptr;
};

}  // namespace MJB_CPP_MODE
}  // namespace mjb

#endif  // MJBRIDGE_HPP
