#include "fastslow/synth/features.h"

#include <string>

#include "fastslow/graph/hlo_tables.h"

namespace fastslow::synth {
namespace {

// Columns of one per-dimension field: `prefix_0..n-1`, and optionally
// `prefix_sum`, `prefix_product`.
struct DimGroup {
  std::vector<int> dim;
  int sum = -1, product = -1;

  DimGroup(const std::string& prefix, int n, bool sum_product) {
    for (int i = 0; i < n; ++i) dim.push_back(require_node_feature(prefix + "_" + std::to_string(i)));
    if (sum_product) {
      sum = require_node_feature(prefix + "_sum");
      product = require_node_feature(prefix + "_product");
    }
  }

  // Sum and product run over every entry, also those past the named columns
  // (slices have two columns but any rank).
  template <class T>
  void fill(float* row, const std::vector<T>& values) const {
    if (values.empty()) {
      if (product >= 0) row[product] = 1.f;  // the empty product, as the published files hold it
      return;
    }
    double s = 0, p = 1;
    for (size_t i = 0; i < values.size(); ++i) {
      const double v = static_cast<double>(values[i]);
      if (i < dim.size()) row[dim[i]] = static_cast<float>(v);
      s += v;
      p *= v;
    }
    if (sum >= 0) row[sum] = static_cast<float>(s);
    if (product >= 0) row[product] = static_cast<float>(p);
  }
};

struct Columns {
  int is_root = require_node_feature("is_root");
  int element_bits = require_node_feature("element_size_in_bits");
  std::vector<int> type_one_hot;  // by ElementType
  DimGroup shape{"shape_dimensions", 6, true};
  int tuple_size = require_node_feature("shape_tuple_shapes_size");
  int parameter_number = require_node_feature("parameter_number");
  DimGroup dimensions{"dimensions", 6, false};
  DimGroup window_size{"window_size", 6, true};
  DimGroup window_stride{"window_stride", 6, true};
  DimGroup window_pad_low{"window_padding_low", 6, true};
  DimGroup window_pad_high{"window_padding_high", 6, true};
  DimGroup window_dilation{"window_window_dilation", 6, true};
  DimGroup base_dilation{"window_base_dilation", 6, true};
  DimGroup reversal{"window_window_reversal", 6, false};
  int reversal_true = require_node_feature("window_window_reversal_true_count");
  int reversal_false = require_node_feature("window_window_reversal_false_count");
  int input_batch = require_node_feature("convolution_dim_numbers_input_batch_dim");
  int input_feature = require_node_feature("convolution_dim_numbers_input_feature_dim");
  DimGroup input_spatial{"convolution_dim_numbers_input_spatial_dims", 4, false};
  int kernel_in = require_node_feature("convolution_dim_numbers_kernel_input_feature_dim");
  int kernel_out = require_node_feature("convolution_dim_numbers_kernel_output_feature_dim");
  DimGroup kernel_spatial{"convolution_dim_numbers_kernel_spatial_dims", 4, false};
  int output_batch = require_node_feature("convolution_dim_numbers_output_batch_dim");
  int output_feature = require_node_feature("convolution_dim_numbers_output_feature_dim");
  int feature_groups = require_node_feature("feature_group_count");
  int batch_groups = require_node_feature("batch_group_count");
  DimGroup slice_start{"slice_dims_start", 2, true};
  DimGroup slice_stride{"slice_dims_stride", 2, true};
  DimGroup slice_limit{"slice_dims_limit", 2, true};
  DimGroup dynamic_slice{"dynamic_slice_sizes", 2, true};
  DimGroup pad_low{"padding_config_edge_padding_low", 2, true};
  DimGroup pad_high{"padding_config_edge_padding_high", 2, true};
  int is_stable = require_node_feature("is_stable");
  DimGroup layout{"layout_minor_to_major", 6, false};

  Columns() {
    for (int t = 0; t <= static_cast<int>(ElementType::Token); ++t)
      type_one_hot.push_back(require_node_feature(std::string("shape_element_type_is_") +
                                                  element_type_name(static_cast<ElementType>(t))));
  }
};

void fill_row(const Columns& c, const HloNode& n, float* row) {
  row[c.is_root] = n.is_root ? 1.f : 0.f;
  row[c.element_bits] = 0.f;  // never filled in the published files
  row[c.type_one_hot[static_cast<int>(n.type)]] = 1.f;
  if (n.type == ElementType::Tuple) {
    row[c.tuple_size] = static_cast<float>(n.tuple_shapes.size());
    row[c.shape.product] = 1.f;
  } else {
    c.shape.fill(row, n.dims);  // a scalar's product: 1 element
    c.layout.fill(row, n.minor_to_major);
  }
  row[c.parameter_number] = static_cast<float>(n.parameter_number);
  c.dimensions.fill(row, n.dimensions);
  {
    const Window& w = n.window;
    c.window_size.fill(row, w.size);
    c.window_stride.fill(row, w.stride);
    c.window_pad_low.fill(row, w.pad_low);
    c.window_pad_high.fill(row, w.pad_high);
    c.window_dilation.fill(row, w.window_dilation);
    c.base_dilation.fill(row, w.base_dilation);
    std::vector<int> rev(w.reversal.begin(), w.reversal.end());
    c.reversal.fill(row, rev);
    int t = 0;
    for (bool r : w.reversal) t += r ? 1 : 0;
    row[c.reversal_true] = static_cast<float>(t);
    row[c.reversal_false] = static_cast<float>(w.reversal.size() - t);
  }
  if (n.has_conv_dims) {
    const ConvDimensionNumbers& d = n.conv_dims;
    row[c.input_batch] = static_cast<float>(d.input_batch);
    row[c.input_feature] = static_cast<float>(d.input_feature);
    c.input_spatial.fill(row, d.input_spatial);
    row[c.kernel_in] = static_cast<float>(d.kernel_input_feature);
    row[c.kernel_out] = static_cast<float>(d.kernel_output_feature);
    c.kernel_spatial.fill(row, d.kernel_spatial);
    row[c.output_batch] = static_cast<float>(d.output_batch);
    row[c.output_feature] = static_cast<float>(d.output_feature);
  }
  row[c.feature_groups] = static_cast<float>(n.feature_group_count);
  row[c.batch_groups] = static_cast<float>(n.batch_group_count);
  c.slice_start.fill(row, n.slice_start);
  c.slice_stride.fill(row, n.slice_stride);
  c.slice_limit.fill(row, n.slice_limit);
  c.dynamic_slice.fill(row, n.dynamic_slice_sizes);
  c.pad_low.fill(row, n.pad_low);
  c.pad_high.fill(row, n.pad_high);
  row[c.is_stable] = n.is_stable ? 1.f : 0.f;
}

}  // namespace

std::vector<float> node_features(const HloGraph& g) {
  static const Columns columns;
  const size_t width = node_feature_names().size();
  std::vector<float> out(g.nodes.size() * width, 0.f);
  for (size_t i = 0; i < g.nodes.size(); ++i) fill_row(columns, g.nodes[i], out.data() + i * width);
  return out;
}

}  // namespace fastslow::synth
