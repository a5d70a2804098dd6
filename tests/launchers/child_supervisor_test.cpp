// ChildSupervisor with real child processes (/bin/sh, /bin/sleep). The supervisor is one per
// process and keeps the first failure for good, so each scenario runs in a death test's child.
// The style is "fast" (fork without exec): the parent never touches the supervisor, so each
// child starts with a fresh one, and it shares the fixture's directory with the parent.
#include <signal.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include <gtest/gtest.h>

#include "fulgur/launchers/child_supervisor.h"
#include "temp_dir.h"

namespace fulgur {
namespace {

using namespace std::chrono_literals;

class ChildSupervisorTest : public testing::TempDirTest {
 protected:
  void SetUp() override {
    TempDirTest::SetUp();
    GTEST_FLAG_SET(death_test_style, "fast");
  }

  // True once `pid` is gone: killed and reaped (a zombie still answers kill(pid, 0)).
  static bool gone_within(pid_t pid, std::chrono::milliseconds limit) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < deadline) {
      if (::kill(pid, 0) != 0 && errno == ESRCH) return true;
      std::this_thread::sleep_for(10ms);
    }
    return false;
  }

  // A rank that records its pid in `pid_file`, then sleeps far longer than any test.
  void start_sleeper(int rank, const std::string& pid_file) {
    ChildSupervisor::instance().start(
        rank, "/bin/sh", {"sh", "-c", "echo $$ > " + pid_file + "; exec /bin/sleep 60"}, {});
  }

  // Waits for the supervisor's verdict, marks it reported, prints it and whether `sleeper` is
  // gone, and ends the death test's child.
  [[noreturn]] static void report_and_exit(pid_t sleeper) {
    auto& supervisor = ChildSupervisor::instance();
    const auto failure = supervisor.failure(10s);
    // The supervisor kills and reaps the other ranks by itself, without stop_all().
    const bool sleeper_gone = sleeper > 0 && gone_within(sleeper, 5s);
    supervisor.mark_reported();
    std::fprintf(stderr, "what=[%s] interrupted=%d sleeper_gone=%d\n",
                 failure ? failure->what.c_str() : "none", failure && failure->interrupted,
                 sleeper_gone);
    std::exit(0);
  }

  static pid_t read_pid(const std::string& pid_file) {
    for (int i = 0; i < 500; ++i) {
      std::ifstream in(pid_file);
      pid_t pid = 0;
      if (in >> pid && pid > 0) return pid;
      std::this_thread::sleep_for(10ms);
    }
    return -1;
  }
};

TEST_F(ChildSupervisorTest, AFailingRankStopsTheOthersAndItsErrorIsKept) {
  EXPECT_EXIT(
      {
        auto& supervisor = ChildSupervisor::instance();
        start_sleeper(0, path("sleeper.pid"));
        const pid_t sleeper = read_pid(path("sleeper.pid"));
        supervisor.start(1, "/bin/sh",
                         {"sh", "-c", "printf 'ValueError: boom' > \"$FULGUR_ERROR_FILE\"; exit 3"},
                         {});
        report_and_exit(sleeper);
      },
      ::testing::ExitedWithCode(0),
      "what=\\[rank 1 \\(pid [0-9]+\\) exited with code 3: ValueError: boom\\] interrupted=0 "
      "sleeper_gone=1");
}

TEST_F(ChildSupervisorTest, ARankKilledByASignalIsNamedBySignal) {
  EXPECT_EXIT(
      {
        auto& supervisor = ChildSupervisor::instance();
        supervisor.start(2, "/bin/sh", {"sh", "-c", "kill -TERM $$"}, {});
        report_and_exit(-1);
      },
      ::testing::ExitedWithCode(0),
      "what=\\[rank 2 \\(pid [0-9]+\\) was killed by SIGTERM\\] interrupted=0");
}

TEST_F(ChildSupervisorTest, AFailureNobodyRaisedEndsTheProcessAtExit) {
  EXPECT_EXIT(
      {
        auto& supervisor = ChildSupervisor::instance();
        supervisor.start(1, "/bin/sh", {"sh", "-c", "exit 4"}, {});
        supervisor.failure(10s);
        std::exit(0);  // as if rank 0 finished without looking
      },
      ::testing::ExitedWithCode(1),
      "fulgur: rank 1 \\(pid [0-9]+\\) exited with code 4; stopped the other ranks");
}

TEST_F(ChildSupervisorTest, CtrlCStopsTheRanksAndIsReportedAsAnInterrupt) {
  EXPECT_EXIT(
      {
        start_sleeper(0, path("sleeper.pid"));
        const pid_t sleeper = read_pid(path("sleeper.pid"));
        std::raise(SIGINT);
        report_and_exit(sleeper);
      },
      ::testing::ExitedWithCode(0),
      "what=\\[received SIGINT \\(Ctrl-C\\)\\] interrupted=1 sleeper_gone=1");
}

TEST_F(ChildSupervisorTest, RanksThatSucceedLeaveNothingBehind) {
  const std::string tmp = path("tmp");
  std::filesystem::create_directory(tmp);
  EXPECT_EXIT(
      {
        ::setenv("TMPDIR", tmp.c_str(), 1);  // where the supervisor keeps the ranks' error files
        auto& supervisor = ChildSupervisor::instance();
        for (int rank = 1; rank <= 2; ++rank) {
          supervisor.start(rank, "/bin/sh",
                           {"sh", "-c", "sleep 0.3; touch " + path("done" + std::to_string(rank))},
                           {});
        }
        std::fprintf(stderr, "children=%d\n", supervisor.has_children());
        std::exit(0);  // the supervisor waits for both at exit
      },
      ::testing::ExitedWithCode(0), "children=1");
  // Both ran to the end (the exit waited for them), and their error folder is gone.
  EXPECT_TRUE(std::filesystem::exists(path("done1")));
  EXPECT_TRUE(std::filesystem::exists(path("done2")));
  EXPECT_TRUE(std::filesystem::is_empty(tmp));
}

}  // namespace
}  // namespace fulgur
