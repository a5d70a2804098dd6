#include "fulgur/io/directory_listing.h"

#include <dirent.h>
#include <sys/stat.h>

#include <cstring>
#include <memory>

namespace fulgur {

std::vector<DirectoryEntry> list_directory(const std::string& dir) {
  const std::string base = dir.empty() ? "." : dir;
  std::unique_ptr<DIR, int (*)(DIR*)> handle(::opendir(base.c_str()), &::closedir);
  std::vector<DirectoryEntry> entries;
  if (!handle) return entries;
  while (const dirent* e = ::readdir(handle.get())) {
    if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0) continue;
    DirectoryEntry entry{.name = e->d_name};
    struct stat st {};
    if (::stat((base + "/" + entry.name).c_str(), &st) == 0) {
      entry.is_directory = S_ISDIR(st.st_mode);
      entry.is_regular_file = S_ISREG(st.st_mode);
      entry.modified_ns = int64_t{st.st_mtim.tv_sec} * 1'000'000'000 + st.st_mtim.tv_nsec;
    }
    entries.push_back(std::move(entry));
  }
  return entries;
}

}  // namespace fulgur
