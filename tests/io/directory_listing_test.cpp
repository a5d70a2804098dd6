// list_directory (POSIX, not std::filesystem's iterator): names, kinds and modification times;
// parse_count for numbered names; and what TorchCheckpointIO builds on them: stale temporaries
// of dead writers removed, those of live ones and lookalike names kept.
#include "fulgur/io/directory_listing.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "fulgur/io/torch_checkpoint_io.h"
#include "temp_dir.h"

namespace fulgur {
namespace {

namespace fs = std::filesystem;
using ::testing::UnorderedElementsAre;

class DirectoryListingTest : public testing::TempDirTest {
 protected:
  void touch(const std::string& name) { std::ofstream(path(name)) << "x"; }
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& e : list_directory(dir_.string())) out.push_back(e.name);
    return out;
  }
};

TEST_F(DirectoryListingTest, ListsNamesWithTheirKindAndAge) {
  touch("old.ckpt");
  fs::last_write_time(path("old.ckpt"), fs::file_time_type::clock::now() - std::chrono::hours(1));
  touch("new.ckpt");
  fs::create_directory(path("version_0"));
  fs::create_symlink("new.ckpt", path("link.ckpt"));

  const auto entries = list_directory(dir_.string());
  auto find = [&](const std::string& name) {
    return *std::find_if(entries.begin(), entries.end(),
                         [&](const DirectoryEntry& e) { return e.name == name; });
  };
  EXPECT_THAT(names(), UnorderedElementsAre("old.ckpt", "new.ckpt", "version_0", "link.ckpt"));
  EXPECT_TRUE(find("new.ckpt").is_regular_file);
  EXPECT_FALSE(find("new.ckpt").is_directory);
  EXPECT_TRUE(find("version_0").is_directory);
  EXPECT_TRUE(find("link.ckpt").is_regular_file) << "links are followed";
  EXPECT_GT(find("new.ckpt").modified_ns, find("old.ckpt").modified_ns + 3000'000'000'000LL);
}

TEST_F(DirectoryListingTest, AMissingOrUnreadableDirectoryListsEmpty) {
  EXPECT_TRUE(list_directory(path("absent")).empty());
  touch("file");
  EXPECT_TRUE(list_directory(path("file")).empty()) << "a file is no directory";
}

TEST(ParseCount, TakesPlainDecimalDigitsOnly) {
  int64_t n = -1;
  EXPECT_TRUE(parse_count("12", n));
  EXPECT_EQ(n, 12);
  for (const char* bad : {"", "-5", "+5", " 5", "5a", "0x10", "99999999999999999999"}) {
    EXPECT_FALSE(parse_count(bad, n)) << '"' << bad << '"';
  }
}

TEST_F(DirectoryListingTest, StaleTemporariesOfDeadWritersAreRemovedAndNothingElse) {
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  ASSERT_GT(child, 0);
  ::waitpid(child, nullptr, 0);  // now no process has this pid (until it is reused)
  const std::string dead = std::to_string(child);
  const std::string alive = std::to_string(::getpid());
  const std::vector<std::string> files = {"a.ckpt.tmp-" + dead,  "b.ckpt.tmp-" + alive,
                                          "c.ckpt.tmp-x" + dead, ".tmp-" + dead,
                                          "d.ckpt.tmp--1",       "e.ckpt"};
  for (const auto& name : files) touch(name);
  fs::create_directory(path("f.ckpt.tmp-" + dead));

  EXPECT_EQ(TorchCheckpointIO::remove_stale_temporaries(dir_.string()), 1);
  EXPECT_THAT(names(),
              UnorderedElementsAre("b.ckpt.tmp-" + alive, "c.ckpt.tmp-x" + dead, ".tmp-" + dead,
                                   "d.ckpt.tmp--1", "e.ckpt", "f.ckpt.tmp-" + dead));
}

}  // namespace
}  // namespace fulgur
