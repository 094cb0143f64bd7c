#include "train/gloo_sync.h"

#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/autograd/function.h>
#include <torch/csrc/autograd/function_hook.h>
#include <torch/csrc/autograd/variable.h>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#ifdef FASTSLOW_NCCL
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#endif

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <utility>

#include "fastslow/error.h"

namespace fastslow::train {

namespace {

// As PyTorch's DDP: a small first bucket (the last layers' gradients, ready
// first) starts communicating early.
constexpr int64_t kFirstBucketElements = int64_t{1} << 18;  // 1 MB of float32
constexpr auto kBeat = std::chrono::milliseconds(500);
constexpr auto kPoll = std::chrono::milliseconds(10);

std::string seconds_text(std::chrono::milliseconds t) {
  return std::to_string(std::chrono::duration_cast<std::chrono::seconds>(t).count()) + " s";
}

c10::intrusive_ptr<c10d::Store> with_prefix(c10::intrusive_ptr<c10d::Store> store, const std::string& prefix) {
  if (prefix.empty()) return store;
  return c10::make_intrusive<c10d::PrefixStore>(prefix, std::move(store));
}

bool loopback(const std::string& addr) {
  return addr == "localhost" || addr.rfind("127.", 0) == 0 || addr == "::1";
}

class GlooSync : public GradientSync {
 public:
  GlooSync(const DistEnv& env, std::chrono::milliseconds timeout, int64_t bucket_bytes)
      : env_(env), timeout_(timeout), bucket_elements_(std::max<int64_t>(1, bucket_bytes / 4)) {
    const std::string where = env.master_addr + ":" + std::to_string(env.master_port);
    try {
      c10d::TCPStoreOptions so;
      so.port = static_cast<uint16_t>(env.master_port);
      so.isServer = env.rank == 0 && !env.agent_store;
      so.numWorkers = static_cast<size_t>(env.world_size);
      so.waitWorkers = !env.agent_store;
      so.timeout = timeout;
      store_ = with_prefix(c10::make_intrusive<c10d::TCPStore>(env.master_addr, so), env.store_prefix);
      // The heartbeat has its own connection: a blocking call on the main
      // one holds that connection's lock.
      c10d::TCPStoreOptions beat = so;
      beat.isServer = false;
      beat.numWorkers = c10::nullopt;
      beat.waitWorkers = false;
      beat_store_ = with_prefix(c10::make_intrusive<c10d::TCPStore>(env.master_addr, beat), env.store_prefix);
      auto options = c10d::ProcessGroupGloo::Options::create(timeout);
      if (const char* ifname = std::getenv("GLOO_SOCKET_IFNAME"); ifname && *ifname)
        options->devices.push_back(c10d::ProcessGroupGloo::createDeviceForInterface(ifname));
      else if (loopback(env.master_addr))
        options->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1"));
      else
        options->devices.push_back(c10d::ProcessGroupGloo::createDefaultDevice());
      options->threads = 2;
      pg_ = c10::make_intrusive<c10d::ProcessGroupGloo>(store_, env.rank, env.world_size, options);
#ifdef FASTSLOW_NCCL
      // GPU gradients all-reduce in device memory through NCCL; the small
      // host-side agreements stay on Gloo. The communicator is made at the
      // first collective, so a run on the CPU never starts one.
      if (torch::cuda::is_available())
        nccl_ = c10::make_intrusive<c10d::ProcessGroupNCCL>(with_prefix(store_, "nccl/"), env.rank, env.world_size);
#endif
    } catch (const std::exception& e) {
      throw Error("rank " + std::to_string(env.rank) + " of " + std::to_string(env.world_size) +
                  ": rendezvous at " + where + " failed within " + seconds_text(timeout) + ": " + e.what());
    }
    beater_ = std::thread([this] { beat(); });
  }

  ~GlooSync() override {
    *self_ = nullptr;
    {
      std::lock_guard<std::mutex> lock(beat_mutex_);
      stopping_ = true;
    }
    beat_cv_.notify_all();
    if (beater_.joinable()) beater_.join();
  }

  int rank() const override { return env_.rank; }
  int world_size() const override { return env_.world_size; }

  // The buckets are planned once, over the trained parameters last first
  // (the order backward produces their gradients in); a bucket whose
  // gradients are all there is all-reduced at once, while backward goes on,
  // and buckets start in plan order only, so every process issues the same
  // collectives in the same order (a parameter one process did not train
  // this step holds its bucket back until reduce()).
  void expect_gradients(const std::vector<torch::Tensor>& params) override {
    std::lock_guard<std::mutex> lock(plan_mutex_);
    plan(params);
    reset_buckets();  // a step stopped before its reduce() leaves counts behind
    armed_ = true;
  }

  torch::Tensor reduce(const std::vector<torch::Tensor>& params, const torch::Tensor& loss_finite_here) override {
    const auto t0 = std::chrono::steady_clock::now();
    const bool loss_finite = loss_finite_here.item<bool>();
    torch::NoGradGuard no_grad;
    {
      std::lock_guard<std::mutex> lock(plan_mutex_);
      if (!armed_) reset_buckets();
      plan(params);
      armed_ = false;
      launch_in_order(/*ready_or_not=*/true);
    }
    // The agreement on the losses travels beside the last buckets rather
    // than after them: one collective's latency less per step.
    std::vector<torch::Tensor> finite{torch::tensor({loss_finite ? 1 : 0}, torch::kInt32)};
    c10d::AllreduceOptions min;
    min.reduceOp = c10d::ReduceOp::MIN;
    const auto agreement = pg_->allreduce(finite, min);
    for (Bucket& b : buckets_) wait(*b.work, "the gradient all-reduce");
    wait(*agreement, "an agreement on the step");
    const float scale = 1.0f / static_cast<float>(env_.world_size);
    for (Bucket& b : buckets_) {
      int64_t at = 0;
      const int64_t flags_at = b.flat.numel() - static_cast<int64_t>(b.members.size());
      const torch::Tensor flag_values = b.flat.narrow(0, flags_at, static_cast<int64_t>(b.members.size())).cpu();
      const auto flags = flag_values.accessor<float, 1>();  // one read, not an item() per parameter
      for (size_t k = 0; k < b.members.size(); ++k) {
        torch::Tensor p = params_[b.members[k]];
        const int64_t n = p.numel();
        if (flags[k] > 0) {
          torch::Tensor avg = b.flat.narrow(0, at, n).mul(scale).view(p.sizes()).to(p.device(), p.dtype());
          if (p.grad().defined())
            p.mutable_grad().copy_(avg);
          else
            p.mutable_grad() = avg.clone();
        }
        at += n;
      }
    }
    reset_buckets();
    reduce_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return torch::full({}, finite[0].item<int32_t>() == 1, loss_finite_here.options());
  }

  Verdict agree(Verdict local) override {
    std::vector<torch::Tensor> t{torch::tensor({local ? static_cast<int32_t>(*local) : -1}, torch::kInt32)};
    c10d::AllreduceOptions o;
    o.reduceOp = c10d::ReduceOp::MAX;
    wait(*pg_->allreduce(t, o), "an agreement on stopping");
    const int32_t v = t[0].item<int32_t>();
    return v < 0 ? Verdict{} : Verdict{static_cast<StopReason>(v)};
  }

  void broadcast(const std::vector<torch::Tensor>& tensors) override {
    torch::NoGradGuard no_grad;
    for (const torch::Tensor& t : tensors) {
      std::vector<torch::Tensor> one{t.detach()};
      wait(*pg_->broadcast(one), "the broadcast of rank 0's weights");
    }
  }

  double mean(double local) override {
    std::vector<torch::Tensor> t{torch::tensor({local}, torch::kFloat64)};
    wait(*pg_->allreduce(t), "a mean over the processes");
    return t[0].item<double>() / env_.world_size;
  }

  std::vector<std::string> all_gather(const std::string& local) override {
    const int64_t seq = gathers_++;
    auto key = [&](int64_t s, int r) { return "gather/" + std::to_string(s) + "/" + std::to_string(r); };
    store_->set(key(seq, env_.rank), std::vector<uint8_t>(local.begin(), local.end()));
    // Everyone has read gather seq-2 once they have posted seq-1.
    if (seq >= 2) store_->deleteKey(key(seq - 2, env_.rank));
    std::vector<std::string> keys;
    for (int r = 0; r < env_.world_size; ++r) keys.push_back(key(seq, r));
    wait_for_keys(keys, "its share of the validation");
    std::vector<std::string> out;
    for (const std::string& k : keys) {
      const std::vector<uint8_t> v = store_->get(k);
      out.emplace_back(v.begin(), v.end());
    }
    return out;
  }

  double reduce_seconds() const override { return reduce_seconds_; }

 private:
  std::string who() const {
    return "rank " + std::to_string(env_.rank) + " of " + std::to_string(env_.world_size);
  }

  struct Bucket {
    std::vector<size_t> members;  // indices into params_
    size_t ready = 0;             // members whose gradient backward has produced
    torch::Tensor flat;           // the gradients, then one flag per member (1: this process has one)
    c10::intrusive_ptr<c10d::Work> work;
  };

  // Calls back when backward has accumulated a parameter's gradient.
  // The model may outlive this object: the hook then finds it gone.
  struct ReadyHook : torch::autograd::FunctionPostHook {
    ReadyHook(std::shared_ptr<GlooSync*> sync, int64_t plan, size_t index)
        : sync(std::move(sync)), plan(plan), index(index) {}
    torch::autograd::variable_list operator()(const torch::autograd::variable_list& grad_inputs,
                                              const torch::autograd::variable_list&) override {
      if (GlooSync* s = *sync) s->on_ready(plan, index);
      return grad_inputs;
    }
    std::shared_ptr<GlooSync*> sync;
    int64_t plan;
    size_t index;
  };

  bool same_params(const std::vector<torch::Tensor>& params) const {
    if (params.size() != params_.size()) return false;
    for (size_t i = 0; i < params.size(); ++i)
      if (!params[i].is_same(params_[i])) return false;
    return true;
  }

  // Needs plan_mutex_. Hooks go on the first plan's parameters only: a
  // later plan (other parameters) reduces after backward.
  void plan(const std::vector<torch::Tensor>& params) {
    if (!buckets_.empty() && same_params(params)) return;
    ++plan_id_;
    next_launch_ = 0;
    params_ = params;
    buckets_.assign(1, Bucket{});
    bucket_of_.assign(params.size(), 0);
    int64_t filled = 0, cap = std::min<int64_t>(kFirstBucketElements, bucket_elements_);
    for (size_t k = params.size(); k-- > 0;) {
      const int64_t n = params[k].numel();
      if (filled > 0 && filled + n > cap) {
        buckets_.emplace_back();
        filled = 0;
        cap = bucket_elements_;
      }
      buckets_.back().members.push_back(k);
      bucket_of_[k] = buckets_.size() - 1;
      filled += n;
    }
    if (hooked_) return;
    hooked_ = true;
    for (size_t k = 0; k < params.size(); ++k) {
      if (!params[k].requires_grad()) continue;
      auto acc = torch::autograd::impl::grad_accumulator(params[k]);
      acc->add_post_hook(std::make_unique<ReadyHook>(self_, plan_id_, k));
      accumulators_.push_back(std::move(acc));  // the parameter holds its accumulator weakly
    }
  }

  void reset_buckets() {  // needs plan_mutex_
    for (Bucket& b : buckets_) {
      b.ready = 0;
      b.work.reset();
    }
    next_launch_ = 0;
  }

  void on_ready(int64_t plan, size_t index) {
    std::lock_guard<std::mutex> lock(plan_mutex_);
    if (!armed_ || plan != plan_id_) return;
    ++buckets_[bucket_of_[index]].ready;
    launch_in_order(/*ready_or_not=*/false);
  }

  void launch_in_order(bool ready_or_not) {  // needs plan_mutex_
    torch::NoGradGuard no_grad;
    while (next_launch_ < buckets_.size() &&
           (ready_or_not || buckets_[next_launch_].ready == buckets_[next_launch_].members.size())) {
      Bucket& b = buckets_[next_launch_++];
      // NCCL reduces GPU memory where this LibTorch has it; Gloo reduces
      // host memory, so without NCCL CUDA gradients go through the host.
      const bool on_device = nccl_on(params_[b.members.front()]);
      const torch::TensorOptions where =
          torch::TensorOptions(torch::kFloat32).device(on_device ? params_[b.members.front()].device() : torch::kCPU);
      std::vector<torch::Tensor> parts;
      std::vector<float> flags;
      for (size_t i : b.members) {
        const torch::Tensor& g = params_[i].grad();
        parts.push_back(g.defined() ? g.detach().to(where).reshape({-1}) : torch::zeros({params_[i].numel()}, where));
        flags.push_back(g.defined() ? 1.0f : 0.0f);
      }
      parts.push_back(torch::tensor(flags, torch::kFloat32).to(where.device()));
      b.flat = torch::cat(parts);
      std::vector<torch::Tensor> one{b.flat};
#ifdef FASTSLOW_NCCL
      if (on_device) {
        b.work = nccl_->allreduce(one);
        continue;
      }
#endif
      b.work = pg_->allreduce(one);
    }
  }

  void wait(c10d::Work& w, const char* what) {
    try {
      w.wait(timeout_);
    } catch (const std::exception& e) {
      throw Error(who() + ": " + what + " failed (another process stopped, or none answered within " +
                  seconds_text(timeout_) + ", --dist-timeout): " + e.what());
    }
  }

  void beat() {
    std::unique_lock<std::mutex> lock(beat_mutex_);
    while (!stopping_) {
      lock.unlock();
      try {
        beat_store_->add("beat/" + std::to_string(env_.rank), 1);
      } catch (const std::exception&) {
        // Rank 0 (the store) is gone: the main thread's next call says so.
      }
      lock.lock();
      beat_cv_.wait_for(lock, kBeat, [this] { return stopping_; });
    }
  }

  // Waits for `keys` while every peer keeps beating; a peer silent for the
  // timeout is taken for dead.
  void wait_for_keys(const std::vector<std::string>& keys, const char* what) {
    std::vector<int64_t> last(static_cast<size_t>(env_.world_size), -1);
    std::vector<std::chrono::steady_clock::time_point> seen(static_cast<size_t>(env_.world_size),
                                                            std::chrono::steady_clock::now());
    try {
      while (!store_->check(keys)) {
        const auto now = std::chrono::steady_clock::now();
        for (int r = 0; r < env_.world_size; ++r) {
          if (r == env_.rank) continue;
          const int64_t b = store_->add("beat/" + std::to_string(r), 0);
          if (b != last[static_cast<size_t>(r)]) {
            last[static_cast<size_t>(r)] = b;
            seen[static_cast<size_t>(r)] = now;
          } else if (now - seen[static_cast<size_t>(r)] > timeout_) {
            throw Error(who() + ": rank " + std::to_string(r) + " has not answered for " + seconds_text(timeout_) +
                        " (--dist-timeout) while waiting for " + what + "; it has probably died");
          }
        }
        std::this_thread::sleep_for(kPoll);
      }
    } catch (const Error&) {
      throw;
    } catch (const std::exception& e) {
      throw Error(who() + ": lost the rendezvous store (rank 0 stopped?) while waiting for " + what + ": " +
                  e.what());
    }
  }

  DistEnv env_;
  std::chrono::milliseconds timeout_;
  c10::intrusive_ptr<c10d::Store> store_, beat_store_;
  c10::intrusive_ptr<c10d::ProcessGroupGloo> pg_;
#ifdef FASTSLOW_NCCL
  c10::intrusive_ptr<c10d::ProcessGroupNCCL> nccl_;  // null without a GPU
  bool nccl_on(const torch::Tensor& t) const { return nccl_ && t.is_cuda(); }
#else
  static bool nccl_on(const torch::Tensor&) { return false; }
#endif
  int64_t gathers_ = 0;
  double reduce_seconds_ = 0;
  int64_t bucket_elements_;
  std::mutex plan_mutex_;
  std::vector<torch::Tensor> params_;
  std::vector<Bucket> buckets_;
  std::vector<size_t> bucket_of_;
  // shared_ptr<Node> in older LibTorch, intrusive_ptr in newer.
  std::vector<decltype(torch::autograd::impl::grad_accumulator(std::declval<const torch::Tensor&>()))> accumulators_;
  int64_t plan_id_ = 0;
  std::shared_ptr<GlooSync*> self_ = std::make_shared<GlooSync*>(this);
  bool hooked_ = false, armed_ = false;
  size_t next_launch_ = 0;
  std::mutex beat_mutex_;
  std::condition_variable beat_cv_;
  bool stopping_ = false;
  std::thread beater_;
};

}  // namespace

std::shared_ptr<GradientSync> connect_gloo(const DistEnv& env, std::chrono::milliseconds timeout,
                                           int64_t bucket_bytes) {
  return std::make_shared<GlooSync>(env, timeout, bucket_bytes);
}

}  // namespace fastslow::train
