// InlineFunction<R(Args...), Capacity>: a move-only callable wrapper whose storage is inline only.
//
// Contract
// - The wrapped callable lives inside the InlineFunction object; nothing is ever allocated on the heap.
// - A callable that is larger than Capacity, more aligned than alignof(std::max_align_t), or whose move
//   constructor may throw, is rejected at compile time: the converting constructor is deleted for it, so
//   std::is_constructible_v<InlineFunction<...>, F> is false and a call site fails to compile. There is no
//   silent heap fallback (std::function, std::move_only_function and absl::AnyInvocable all have one).
// - Moving an InlineFunction moves the callable (noexcept) and leaves the source empty.
// - Calling an empty InlineFunction is a programmer error: it aborts the process in every build.
// - Not thread-safe; the callable may re-enter its own InlineFunction only if it does not reassign it.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <functional>
#include <new>
#include <type_traits>
#include <utility>

namespace loopwire {

template <typename Signature, std::size_t Capacity = 32>
class InlineFunction;

template <typename R, typename... Args, std::size_t Capacity>
class InlineFunction<R(Args...), Capacity> {
public:
    static constexpr std::size_t capacity = Capacity;
    static constexpr std::size_t alignment = alignof(std::max_align_t);

    // True when F can be stored: small enough, aligned enough, and nothrow-movable.
    template <typename F>
    static constexpr bool fits = sizeof(F) <= Capacity &&
                                 alignof(F) <= alignment&& std::is_nothrow_move_constructible_v<F>;

    template <typename F>
    static constexpr bool callable =
        !std::is_same_v<std::remove_cvref_t<F>, InlineFunction> && std::is_invocable_r_v<R, std::decay_t<F>&, Args...>;

    InlineFunction() noexcept = default;
    InlineFunction(std::nullptr_t) noexcept {}

    // clang-format 14 mangles requires-clauses, so these two constructors are formatted by hand.
    // clang-format off
    // NOLINTBEGIN(bugprone-forwarding-reference-overload): `callable` excludes InlineFunction itself.
    template <typename F>
        requires(callable<F> && fits<std::decay_t<F>>)
    InlineFunction(F&& f) noexcept(std::is_nothrow_constructible_v<std::decay_t<F>, F&&>) {
        using Fn = std::decay_t<F>;
        ::new (static_cast<void*>(storage_)) Fn(std::forward<F>(f));
        ops_ = &opsFor<Fn>;
    }

    // Deleted on purpose: the callable is too large for Capacity, over-aligned, or its move may throw.
    // Capture less (a pointer instead of a value), raise Capacity, or make the move constructor noexcept.
    template <typename F>
        requires(callable<F> && !fits<std::decay_t<F>>)
    InlineFunction(F&& f) = delete;
    // NOLINTEND(bugprone-forwarding-reference-overload)
    // clang-format on

    InlineFunction(InlineFunction&& other) noexcept { takeFrom(other); }

    InlineFunction& operator=(InlineFunction&& other) noexcept {
        if (this != &other) {
            reset();
            takeFrom(other);
        }
        return *this;
    }

    InlineFunction& operator=(std::nullptr_t) noexcept {
        reset();
        return *this;
    }

    InlineFunction(const InlineFunction&) = delete;
    InlineFunction& operator=(const InlineFunction&) = delete;

    ~InlineFunction() { reset(); }

    explicit operator bool() const noexcept { return ops_ != nullptr; }

    R operator()(Args... args) {
        if (ops_ == nullptr) std::abort();
        return ops_->invoke(storage_, std::forward<Args>(args)...);
    }

    void reset() noexcept {
        if (ops_ != nullptr) {
            ops_->destroy(storage_);
            ops_ = nullptr;
        }
    }

private:
    struct Ops {
        R (*invoke)(void* self, Args&&... args);
        void (*relocate)(void* to, void* from) noexcept;  // move-construct into `to`, destroy `from`
        void (*destroy)(void* self) noexcept;
    };

    template <typename Fn>
    static constexpr Ops opsFor{
        [](void* self, Args&&... args) -> R {
            return std::invoke(*static_cast<Fn*>(self), std::forward<Args>(args)...);
        },
        [](void* to, void* from) noexcept {
            ::new (to) Fn(std::move(*static_cast<Fn*>(from)));
            static_cast<Fn*>(from)->~Fn();
        },
        [](void* self) noexcept { static_cast<Fn*>(self)->~Fn(); },
    };

    void takeFrom(InlineFunction& other) noexcept {
        if (other.ops_ != nullptr) {
            other.ops_->relocate(storage_, other.storage_);
            ops_ = other.ops_;
            other.ops_ = nullptr;
        }
    }

    alignas(alignment) unsigned char storage_[Capacity];
    const Ops* ops_ = nullptr;
};

}  // namespace loopwire
