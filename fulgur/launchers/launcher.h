#pragma once
// Launcher: how the processes of a job come to be. The Strategy owns one when it must start
// processes itself; the Trainer then runs each of fit/validate/test/predict through
// `launch`, which makes sure every rank exists before the work starts in this process.
#include <functional>

namespace fulgur {

class Launcher {
 public:
  virtual ~Launcher() = default;
  // Starts the other processes if they do not exist yet, then runs `function` in this one.
  // Raises what `function` raised, or a DistributedError naming the rank that failed first.
  virtual void launch(const std::function<void()>& function) = 0;
  // Stops the processes this launcher started (a no-op when it started none).
  virtual void kill() = 0;
};

}  // namespace fulgur
