#include "search/walker.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include "search/ignore_rules.h"

namespace ikigai::search {
namespace {

constexpr unsigned kMaxThreads = 8;
// getdents64 is always offered at least this much room.
constexpr std::size_t kMinRead = 32 * 1024;

// A directory waiting to be read. `path` is relative to the ignore rules'
// anchor (the repository top, or the root): the root's own path below the
// anchor, then '/' and the path below the root.
struct Work {
  std::string path;
  std::shared_ptr<const IgnoreChain> chain;
};

// What one worker reuses from directory to directory, so that reading a
// directory allocates nothing once the buffers have grown.
struct Scratch {
  std::vector<char> listing;  // raw getdents64 records of the current directory
  std::string path;           // the current entry's path
  std::vector<Work> children;
  std::size_t unreadable = 0;
};

EntryType TypeOf(unsigned char d_type) {
  switch (d_type) {
    case DT_REG:
      return EntryType::kFile;
    case DT_DIR:
      return EntryType::kDirectory;
    case DT_LNK:
      return EntryType::kSymlink;
    default:
      return EntryType::kOther;
  }
}

EntryType TypeOfMode(mode_t mode) {
  if (S_ISREG(mode)) return EntryType::kFile;
  if (S_ISDIR(mode)) return EntryType::kDirectory;
  if (S_ISLNK(mode)) return EntryType::kSymlink;
  return EntryType::kOther;
}

class Walker {
 public:
  using Visit = std::function<void(const Entry&, unsigned worker)>;

  Walker(const WalkOptions& options, const Visit& visit, int root_fd, std::size_t rel_offset,
         unsigned workers)
      : options_(options),
        visit_(visit),
        root_fd_(root_fd),
        rel_offset_(rel_offset),
        scratch_(workers) {}

  WalkStats Run(Work root) {
    stack_.push_back(std::move(root));
    pending_ = 1;
    std::vector<std::thread> threads;
    for (unsigned id = 1; id < scratch_.size(); ++id) {
      try {
        threads.emplace_back([this, id] { Serve(id); });
      } catch (const std::system_error&) {
        break;  // no more threads: the ones running finish the walk
      }
    }
    Serve(0);
    for (auto& t : threads) t.join();
    WalkStats stats;
    for (const auto& s : scratch_) stats.unreadable_directories += s.unreadable;
    return stats;
  }

 private:
  // Takes directories from the shared stack until every queued directory is
  // done: `pending_` counts those queued or being read, so it reaches zero
  // only when no worker can add more.
  void Serve(unsigned id) {
    Scratch& s = scratch_[id];
    Work current;
    bool have = false;
    for (;;) {
      {
        std::unique_lock lock(mu_);
        if (have) {
          const std::size_t n = s.children.size();
          for (auto& child : s.children) stack_.push_back(std::move(child));
          s.children.clear();
          pending_ += n;
          --pending_;
          if (pending_ == 0) {
            cv_.notify_all();
            return;
          }
          // This worker takes one of its children; idle ones take the rest.
          if (n > 1 && idle_ > 0) {
            if (n - 1 >= idle_) {
              cv_.notify_all();
            } else {
              for (std::size_t i = 1; i < n; ++i) cv_.notify_one();
            }
          }
        }
        while (stack_.empty() && pending_ != 0) {
          ++idle_;
          cv_.wait(lock);
          --idle_;
        }
        if (stack_.empty()) return;
        current = std::move(stack_.back());
        stack_.pop_back();
        have = true;
      }
      Read(current, id, s);
    }
  }

  // Reads every record of the directory into s.listing; returns the bytes used.
  std::size_t ReadListing(int fd, Scratch& s) {
    std::size_t used = 0;
    for (;;) {
      if (s.listing.size() - used < kMinRead) {
        s.listing.resize(std::max(s.listing.size() * 2, used + 2 * kMinRead));
      }
      const ssize_t n = ::getdents64(fd, s.listing.data() + used, s.listing.size() - used);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        ++s.unreadable;  // what was read is still walked
        break;
      }
      if (n == 0) break;
      used += static_cast<std::size_t>(n);
    }
    return used;
  }

  void Read(const Work& work, unsigned id, Scratch& s) {
    const char* rel = work.path.size() > rel_offset_ ? work.path.c_str() + rel_offset_ : ".";
    const int fd = ::openat(root_fd_, rel, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) {
      // Gone or replaced by a link since it was listed: nothing to report.
      if (errno != ENOENT && errno != ENOTDIR && errno != ELOOP) ++s.unreadable;
      return;
    }
    const std::size_t used = ReadListing(fd, s);

    std::shared_ptr<const IgnoreChain> chain = work.chain;
    if (options_.use_ignore_files) {
      IgnoreFilesPresent present;
      for (std::size_t off = 0; off < used;) {
        const auto* d = reinterpret_cast<const dirent64*>(s.listing.data() + off);
        off += d->d_reclen;
        if (d->d_name[0] != '.') continue;
        const std::string_view name(d->d_name);
        present.gitignore |= name == ".gitignore";
        present.ignore |= name == ".ignore";
        present.git |= name == ".git";
      }
      if (present.any()) {
        const std::string_view base(work.path);
        chain = IgnoreChain::Enter(std::move(chain), fd, base, present);
      }
    }
    const IgnoreChain* rules = chain && chain->has_rules() ? chain.get() : nullptr;

    s.path.assign(work.path);
    if (!s.path.empty()) s.path.push_back('/');
    const std::size_t name_offset = s.path.size();
    for (std::size_t off = 0; off < used;) {
      const auto* d = reinterpret_cast<const dirent64*>(s.listing.data() + off);
      off += d->d_reclen;
      const char* name = d->d_name;
      if (name[0] == '.') {
        if (name[1] == '\0' || (name[1] == '.' && name[2] == '\0')) continue;
        if (std::strcmp(name, ".git") == 0) continue;  // never reported, never entered
        if (!options_.include_hidden) continue;
      }
      EntryType type;
      if (d->d_type != DT_UNKNOWN) {
        type = TypeOf(d->d_type);
      } else {
        struct stat st {};
        if (::fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;  // vanished
        type = TypeOfMode(st.st_mode);
      }
      s.path.resize(name_offset);
      s.path.append(name);
      const bool is_dir = type == EntryType::kDirectory;
      const bool ignored = rules != nullptr && rules->IsIgnored(s.path, is_dir);
      const std::string_view path(s.path);
      const Entry entry{path.substr(rel_offset_), path.substr(name_offset), type, ignored};
      visit_(entry, id);
      if (!is_dir || ignored) continue;
      if (options_.descend && !options_.descend(entry.path)) continue;
      s.children.push_back(Work{s.path, chain});
    }
    ::close(fd);
  }

  const WalkOptions& options_;
  const Visit& visit_;
  const int root_fd_;
  const std::size_t rel_offset_;  // where a root-relative path starts in Work::path
  std::vector<Scratch> scratch_;

  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<Work> stack_;  // last in, first out: depth first, little memory
  std::size_t pending_ = 0;
  std::size_t idle_ = 0;
};

// The rules in force at the root from the directories above it, from the
// work tree's top down to the root's parent, and the root's path below the
// top (the anchor of every rule). Outside a work tree the root is the anchor.
std::shared_ptr<const IgnoreChain> RulesAboveRoot(const std::string& root, std::string& prefix) {
  prefix.clear();
  char* real = ::realpath(root.c_str(), nullptr);
  if (real == nullptr) return nullptr;
  const std::string abs = real;
  std::free(real);
  const auto top = FindWorkTreeTop(abs);
  if (!top || *top == abs) return nullptr;
  prefix = abs.substr(*top == "/" ? 1 : top->size() + 1);
  std::shared_ptr<const IgnoreChain> chain;
  std::string dir = *top;
  std::string base;
  for (std::size_t pos = 0;;) {
    const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
      IgnoreFilesPresent present{.gitignore = true, .ignore = true, .git = base.empty()};
      chain = IgnoreChain::Enter(std::move(chain), fd, base, present);
      ::close(fd);
    }
    const std::size_t slash = prefix.find('/', pos);
    if (slash == std::string::npos) break;  // the next one is the root itself
    base = prefix.substr(0, slash);
    dir = abs.substr(0, abs.size() - prefix.size() + slash);
    pos = slash + 1;
  }
  return chain;
}

}  // namespace

unsigned WorkerCount(const WalkOptions& options) {
  unsigned n = options.threads != 0 ? options.threads : std::thread::hardware_concurrency();
  return std::clamp(n, 1u, kMaxThreads);
}

Result<WalkStats, int> Walk(const WalkOptions& options,
                            const std::function<void(const Entry&, unsigned worker)>& visit) {
  const std::string& root = options.root.empty() ? std::string(".") : options.root;
  const int root_fd = ::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (root_fd < 0) return Err(errno);

  Work start;
  if (options.use_ignore_files) start.chain = RulesAboveRoot(root, start.path);
  const std::size_t rel_offset = start.path.empty() ? 0 : start.path.size() + 1;

  Walker walker(options, visit, root_fd, rel_offset, WorkerCount(options));
  WalkStats stats = walker.Run(std::move(start));
  ::close(root_fd);
  return stats;
}

}  // namespace ikigai::search
