#pragma once
// Lightning's save_last: false (None), true, or SaveLast::link() ("link": last.ckpt is a
// symbolic link to the checkpoint saved last, instead of a second copy).
namespace fulgur {

class SaveLast {
 public:
  constexpr SaveLast(bool save = false) : mode_(save ? Mode::kCopy : Mode::kOff) {}
  static constexpr SaveLast link() { return SaveLast(Mode::kLink); }
  constexpr explicit operator bool() const { return mode_ != Mode::kOff; }
  constexpr bool is_link() const { return mode_ == Mode::kLink; }
  constexpr bool operator==(const SaveLast&) const = default;

 private:
  enum class Mode { kOff, kCopy, kLink };
  constexpr explicit SaveLast(Mode mode) : mode_(mode) {}
  Mode mode_;
};

}  // namespace fulgur
