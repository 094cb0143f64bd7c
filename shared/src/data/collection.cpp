#include "fastslow/data/collection.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "fastslow/error.h"

namespace fs = std::filesystem;

namespace fastslow {

namespace {

const char* const kSplits[] = {"train", "valid", "test"};

std::string join(const std::vector<std::string>& items) {
  std::string s;
  for (const std::string& i : items) s += (s.empty() ? "" : ", ") + i;
  return s;
}

// The error_code overloads everywhere: a filesystem_error would escape
// without naming the dataset in our usual form.
bool is_dir(const fs::path& p) {
  std::error_code ec;
  return fs::is_directory(p, ec);
}

std::vector<std::string> list_npz(const fs::path& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  fs::directory_iterator it(dir, ec), end;
  if (ec) throw Error(dir.string(), "", "cannot list directory: " + ec.message());
  for (; it != end; it.increment(ec)) {
    if (ec) break;
    const fs::path& p = it->path();
    std::error_code type_ec;
    if (p.extension() == ".npz" && fs::is_regular_file(p, type_ec))
      out.push_back(p.string());
  }
  if (ec) throw Error(dir.string(), "", "cannot list directory: " + ec.message());
  // Directory order differs between file systems; sorting keeps runs and
  // submissions identical everywhere.
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

std::string CollectionId::str() const {
  std::string s = std::string(graph_kind_name(kind)) + ":" + source;
  if (!search.empty()) s += ":" + search;
  return s;
}

const std::vector<std::string>& all_collection_ids() {
  static const std::vector<std::string> ids = {"tile:xla", "layout:xla:random",
                                               "layout:xla:default", "layout:nlp:random",
                                               "layout:nlp:default"};
  return ids;
}

CollectionId parse_collection_id(const std::string& id) {
  const std::vector<std::string>& ids = all_collection_ids();
  if (std::find(ids.begin(), ids.end(), id) == ids.end())
    throw Error("unknown collection id '" + id + "'; valid ids: " + join(ids));
  CollectionId c;
  size_t a = id.find(':');
  size_t b = id.find(':', a + 1);
  c.kind = parse_graph_kind(id.substr(0, a), id);
  c.source = id.substr(a + 1, b == std::string::npos ? b : b - a - 1);
  if (b != std::string::npos) c.search = id.substr(b + 1);
  return c;
}

std::vector<std::string> Collection::split(const std::string& name) const {
  auto it = files.find(name);
  return it == files.end() ? std::vector<std::string>{} : it->second;
}

std::vector<Collection> discover_collections(const std::string& root) {
  std::error_code ec;
  if (!fs::exists(root, ec)) throw Error(root, "", "dataset directory does not exist");
  if (!is_dir(root)) throw Error(root, "", "dataset path is not a directory");

  const fs::path npz = is_dir(fs::path(root) / "npz") ? fs::path(root) / "npz" : fs::path(root);
  std::vector<Collection> found;
  for (const std::string& s : all_collection_ids()) {
    Collection c;
    c.id = parse_collection_id(s);
    fs::path dir = npz / graph_kind_name(c.id.kind) / c.id.source;
    if (!c.id.search.empty()) dir /= c.id.search;
    c.dir = dir.string();
    for (const char* split : kSplits)
      if (is_dir(dir / split)) c.files[split] = list_npz(dir / split);
    if (!c.files.empty()) found.push_back(std::move(c));
  }
  if (found.empty())
    throw Error(root, "", "no TpuGraphs collection found; expected "
                          "npz/tile/xla/{train,valid,test}/*.npz or "
                          "npz/layout/{xla,nlp}/{default,random}/{train,valid,test}/*.npz "
                          "under this directory, or the same without npz/ when it is "
                          "the npz directory itself");
  return found;
}

Collection find_collection(const std::string& root, const std::string& id) {
  parse_collection_id(id);  // an unknown id is a typo, not a missing directory
  std::vector<Collection> all = discover_collections(root);
  std::vector<std::string> present;
  for (Collection& c : all) {
    if (c.id.str() == id) return std::move(c);
    present.push_back(c.id.str());
  }
  throw Error(root, "", "collection '" + id + "' not found; present: " + join(present));
}

std::string file_stem(const std::string& path) { return fs::path(path).stem().string(); }

}  // namespace fastslow
