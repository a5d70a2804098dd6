// The progress bar as a person sees it: the real fashion-mnist binary runs inside a tmux
// session (a real terminal, so the bar redraws in place), and a capture of the tmux screen
// must show the finished epoch bar with its counts, times, rate, v_num and the prog_bar metric,
// and the validation bar on its own line.
#include <fmt/format.h>

#include <chrono>
#include <regex>
#include <thread>

#include "integration/example_runner.h"

namespace fulgur::testing {
namespace {

std::string shell_output(const std::string& command) {
  std::string out;
  if (std::FILE* pipe = ::popen(command.c_str(), "r")) {
    char buffer[4096];
    size_t n;
    while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) out.append(buffer, n);
    ::pclose(pipe);
  }
  return out;
}

// Runs a short fit inside a tmux terminal `columns` wide; returns the screen once it ended.
std::string fit_in_terminal(const fs::path& dir, int columns, int sanity_steps = 0) {
  // A tmux server of its own (-L), so parallel tests and the user's sessions are untouched.
  const std::string tmux = "tmux -L fulgur-test-" + std::to_string(::getpid());
  const std::string program =
      "cd " + quote(dir.string()) + " && " + quote(kBinary) +
      " fit --trainer.max_epochs=1 --trainer.limit_train_batches=120"
      " --trainer.limit_val_batches=10 --trainer.num_sanity_val_steps=" +
      std::to_string(sanity_steps) + "; echo FULGUR-DONE; sleep 60";
  const std::string session =
      fmt::format(" new-session -d -s bar -x {} -y 30 ", columns) + quote(program);
  EXPECT_EQ(std::system((tmux + session).c_str()), 0)
      << "tmux is needed for this test (scripts/install-deps installs it)";
  std::string screen;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(180);
  while (std::chrono::steady_clock::now() < deadline) {
    screen = shell_output(tmux + " capture-pane -p -t bar");
    if (screen.find("FULGUR-DONE") != std::string::npos) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
  std::system((tmux + " kill-server 2>/dev/null").c_str());
  EXPECT_NE(screen.find("FULGUR-DONE"), std::string::npos) << "the run did not end:\n" << screen;
  return screen;
}

TEST_F(FashionMNISTExample, TheProgressBarDrawsInATerminal) {
  const std::string screen = fit_in_terminal(dir, 200, /*sanity_steps=*/2);
  const std::regex epoch_bar(
      R"(Epoch 0: 100%\|#{20}\| 120/120 \[\d\d:\d\d<00:00, \d+\.\d\dit/s, v_num=0, )"
      R"(train_loss=[0-9.e+-]+, val_acc=[0-9.e+-]+\])");
  const std::regex validation_bar(
      R"(Validation: 100%\|#{20}\| 10/10 \[\d\d:\d\d<00:00, \d+\.\d\dit/s\])");
  EXPECT_TRUE(std::regex_search(screen, epoch_bar)) << screen;
  EXPECT_TRUE(std::regex_search(screen, validation_bar)) << screen;
  // The sanity check's bar counts the batches it runs, not the whole validation set.
  const std::regex sanity_bar(R"(Sanity Checking: 100%\|#{20}\| 2/2 \[)");
  EXPECT_TRUE(std::regex_search(screen, sanity_bar)) << screen;
  // Redrawn in place: the epoch's bar is on the screen once, not once per batch.
  size_t bars = 0;
  for (const auto& line : lines_of(screen)) bars += line.rfind("Epoch 0:", 0) == 0;
  EXPECT_LE(bars, 2u) << screen;
}

TEST_F(FashionMNISTExample, TheProgressBarFitsANarrowTerminal) {
  // 60 columns: the bar shrinks to nothing and the metrics are cut, but no line wraps, so the
  // bar still redraws in place.
  const std::string screen = fit_in_terminal(dir, 60);
  const std::regex cut_bar(R"(Epoch 0: +\d+%\|\| \d+/120 \[.*)");
  size_t bars = 0;
  for (const auto& line : lines_of(screen)) {
    EXPECT_LE(line.size(), 59u) << screen;
    if (line.rfind("Epoch 0:", 0) == 0) {
      ++bars;
      EXPECT_EQ(line.size(), 59u) << line;
      EXPECT_TRUE(std::regex_match(line, cut_bar)) << line;
    }
  }
  // Once before validation's line, once finished after it; not once per redraw.
  EXPECT_LE(bars, 2u) << screen;
  EXPECT_NE(screen.find("Epoch 0: 100%|| 120/120 ["), std::string::npos) << screen;
  EXPECT_NE(screen.find("Validation: 100%|"), std::string::npos) << screen;
}

}  // namespace
}  // namespace fulgur::testing
