#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "commands.h"
#include "fastslow/data/collection.h"
#include "fastslow/error.h"
#include "fastslow/graph/graph.h"
#include "fastslow/analysis/realism.h"
#include "progress.h"

namespace fastslow::cli {

namespace fs = std::filesystem;

namespace {

struct Pending {
  std::string name;
  std::vector<std::string> files;
  bool dataset = false;  // a dataset root's collection
};

bool is_layout(const std::string& file) {
  return detect_graph_kind(NpzReader::open(file)) == GraphKind::Layout;
}

// A dataset root: one group per layout collection (train and valid files:
// test files carry no runtimes). A folder of .npz files, or a file: one
// group per layout file.
std::vector<Pending> groups_of(const std::string& path) {
  std::vector<Pending> out;
  if (fs::is_directory(path) && (fs::is_directory(fs::path(path) / "npz") || fs::path(path).filename() == "npz")) {
    const std::string label = fs::path(path).lexically_normal().filename().string();
    for (const Collection& c : discover_collections(path)) {
      if (c.id.kind != GraphKind::Layout) continue;
      Pending p{label + " " + c.id.str(), c.split("train"), true};
      for (const std::string& f : c.split("valid")) p.files.push_back(f);
      if (!p.files.empty()) out.push_back(std::move(p));
    }
    if (out.empty()) throw Error(path, "", "holds no layout collection with train or valid files");
    return out;
  }
  std::vector<std::string> files;
  if (fs::is_directory(path)) {
    for (const auto& e : fs::directory_iterator(path))
      if (e.path().extension() == ".npz") files.push_back(e.path().string());
    std::sort(files.begin(), files.end());
    files.erase(std::remove_if(files.begin(), files.end(), [](const std::string& f) { return !is_layout(f); }),
                files.end());
    if (files.empty()) throw Error(path, "", "holds no layout .npz file");
  } else {
    files.push_back(path);
  }
  for (const std::string& f : files) {
    std::string name = fs::path(f).stem().string();
    if (name.size() > 30) name = name.substr(0, 27) + "...";  // real stems end in 32-digit hashes
    out.push_back({name, {f}, false});
  }
  return out;
}

// A generated file's template: its stem without the trailing _NNNN.
std::string template_of(const std::string& file) {
  const std::string stem = fs::path(file).stem().string();
  const size_t cut = stem.rfind('_');
  return cut == std::string::npos ? stem : stem.substr(0, cut);
}

// A collection's files split by template, a group each (the collection's
// medians hide a template that is a fifth of its graphs).
std::vector<RealismGroup> by_template(const RealismGroup& g) {
  std::map<std::string, std::vector<FileRealism>> files;  // by template, in name order
  for (const FileRealism& f : g.files) files[template_of(f.file)].push_back(f);
  std::vector<RealismGroup> out;
  for (auto& [name, fs] : files) out.push_back({g.name + " " + name, std::move(fs), g.dataset});
  return out;
}

}  // namespace

Command add_realism_command(CLI::App& app) {
  struct Opts {
    std::vector<std::string> paths;
    bool json = false;
    bool by_template = false;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* sub = app.add_subcommand(
      "realism",
      "Statistics that tell generated layout graphs from real ones, side by side: share of unique configs\n"
      "within 1 % and 5 % of the best runtime, max/min runtime, std of log runtime, spread between duplicate\n"
      "measurements, graph and config sizes, opcode mix, fan-out. PATH: a dataset root (one row per layout\n"
      "collection, train and valid files), a folder of .npz files or a file (one row per file).");
  sub->add_option("path", o->paths, "dataset roots, folders or .npz files")->required();
  sub->add_flag("--json", o->json, "print JSON (every file's statistics) instead of the table");
  sub->add_flag("--by-template", o->by_template,
                "after each generated collection's row (pooled over roots where there are several), one row per "
                "template (the file name's prefix: resnet, unet, ...)");
  return {sub, [o] {
            std::vector<Pending> pending;
            size_t total = 0;
            for (const std::string& p : o->paths) {
              if (!fs::exists(p)) throw Error(p, "", "does not exist");
              for (Pending& g : groups_of(p)) {
                total += g.files.size();
                pending.push_back(std::move(g));
              }
            }
            ProgressBar bar("read", total, "files");
            std::vector<RealismGroup> groups;
            size_t done = 0;
            for (const Pending& p : pending) {
              RealismGroup g{p.name, {}, p.dataset};
              for (const std::string& f : p.files) {
                g.files.push_back(file_realism(NpzReader::open(f)));
                bar.update(++done, fs::path(f).filename().string());
              }
              groups.push_back(std::move(g));
            }
            bar.finish();
            // Several dataset roots (e.g. generated with several seeds): one
            // more row per collection over all of their files, a median less
            // at the mercy of a dozen graphs.
            std::vector<RealismGroup> pooled;
            for (const std::string& id : all_collection_ids()) {
              RealismGroup all{"all roots " + id, {}, true};
              int roots = 0;
              for (const RealismGroup& g : groups)
                if (g.name.size() > id.size() && g.name.compare(g.name.size() - id.size(), id.size(), id) == 0 &&
                    g.name[g.name.size() - id.size() - 1] == ' ') {
                  ++roots;
                  all.files.insert(all.files.end(), g.files.begin(), g.files.end());
                }
              if (roots > 1) pooled.push_back(std::move(all));
            }
            // After the last collection row, before the single files.
            size_t at = 0;
            for (size_t i = 0; i < groups.size(); ++i)
              for (const std::string& id : all_collection_ids())
                if (groups[i].name.size() > id.size() &&
                    groups[i].name.compare(groups[i].name.size() - id.size(), id.size(), id) == 0)
                  at = i + 1;
            if (o->by_template) {
              // Under the pooled rows where there are some, else under each
              // root's; rows [0, end) are collections, the rest real files.
              const auto split = [](std::vector<RealismGroup>& rows, size_t end) {
                std::vector<RealismGroup> with;
                for (size_t i = 0; i < rows.size(); ++i) {
                  with.push_back(rows[i]);
                  if (i < end)
                    for (RealismGroup& t : by_template(rows[i])) with.push_back(std::move(t));
                }
                const size_t added = with.size() - rows.size();
                rows = std::move(with);
                return added;
              };
              if (pooled.empty()) {
                at += split(groups, at);
              } else {
                split(pooled, pooled.size());
              }
            }
            groups.insert(groups.begin() + static_cast<std::ptrdiff_t>(at), pooled.begin(), pooled.end());
            std::printf("%s\n", o->json ? realism_json(groups).c_str() : realism_table(groups).c_str());
            return 0;
          }};
}

}  // namespace fastslow::cli
