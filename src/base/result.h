// Result<T, E>: the return type of every operation that can fail.
//
// A thin wrapper over std::variant so that call sites read as
//   auto r = Op();  if (!r) return r.error();  Use(*r);
// Accessing the wrong alternative is a bug and aborts loudly.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <utility>
#include <variant>

namespace ikigai {

// A constructor rather than an aggregate: clang before 16 has no
// parenthesized aggregate initialization, which Err(text) would need.
template <typename E>
struct Err {
  explicit Err(E e) : error(std::move(e)) {}
  E error;
};
template <typename E>
Err(E) -> Err<E>;

template <typename T, typename E>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::in_place_index<0>, std::move(value)) {}  // NOLINT: implicit by design
  template <typename F>
  Result(Err<F> e) : v_(std::in_place_index<1>, E(std::move(e.error))) {}  // NOLINT

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & { return Get<0>(); }
  const T& value() const& { return Get<0>(); }
  T&& value() && { return std::move(Get<0>()); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  E& error() & { return Get<1>(); }
  const E& error() const& { return Get<1>(); }
  E&& error() && { return std::move(Get<1>()); }

 private:
  template <std::size_t I>
  auto& Get() {
    if (v_.index() != I) Abort();
    return std::get<I>(v_);
  }
  template <std::size_t I>
  const auto& Get() const {
    if (v_.index() != I) Abort();
    return std::get<I>(v_);
  }
  [[noreturn]] static void Abort() {
    std::fputs("ikigai: bug: Result accessed as the wrong alternative\n", stderr);
    std::abort();
  }

  std::variant<T, E> v_;
};

}  // namespace ikigai
