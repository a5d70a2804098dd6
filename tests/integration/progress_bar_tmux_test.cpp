// The progress bar as a person sees it: the real fashion-mnist binary runs inside a tmux
// session (a real terminal, so the bar redraws in place), and a capture of the tmux screen
// must show the finished epoch bar with its counts, times, rate, v_num and the prog_bar metric,
// and the validation bar on its own line.
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

TEST_F(FashionMNISTExample, TheProgressBarDrawsInATerminal) {
  // A tmux server of its own (-L), so parallel tests and the user's sessions are untouched.
  const std::string tmux = "tmux -L fulgur-test-" + std::to_string(::getpid());
  const std::string program =
      "cd " + quote(dir.string()) + " && " + quote(kBinary) +
      " fit --trainer.max_epochs=1 --trainer.limit_train_batches=120"
      " --trainer.limit_val_batches=10 --trainer.num_sanity_val_steps=0; echo FULGUR-DONE; "
      "sleep 60";
  ASSERT_EQ(std::system((tmux + " new-session -d -s bar -x 200 -y 30 " + quote(program)).c_str()),
            0)
      << "tmux is needed for this test (scripts/install-deps installs it)";
  std::string screen;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(180);
  while (std::chrono::steady_clock::now() < deadline) {
    screen = shell_output(tmux + " capture-pane -p -t bar");
    if (screen.find("FULGUR-DONE") != std::string::npos) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
  std::system((tmux + " kill-server 2>/dev/null").c_str());
  ASSERT_NE(screen.find("FULGUR-DONE"), std::string::npos) << "the run did not end:\n" << screen;

  const std::regex epoch_bar(
      R"(Epoch 0: 100%\|#{20}\| 120/120 \[\d\d:\d\d<00:00, \d+\.\d\dit/s, v_num=0, )"
      R"(train_loss=[0-9.e+-]+, val_acc=[0-9.e+-]+\])");
  const std::regex validation_bar(
      R"(Validation: 100%\|#{20}\| 10/10 \[\d\d:\d\d<00:00, \d+\.\d\dit/s\])");
  EXPECT_TRUE(std::regex_search(screen, epoch_bar)) << screen;
  EXPECT_TRUE(std::regex_search(screen, validation_bar)) << screen;
  // Redrawn in place: the epoch's bar is on the screen once, not once per batch.
  size_t bars = 0;
  for (const auto& line : lines_of(screen)) bars += line.rfind("Epoch 0:", 0) == 0;
  EXPECT_LE(bars, 2u) << screen;
}

}  // namespace
}  // namespace fulgur::testing
