// Invalid ops of data-dependent size and set-size ops, one per chunk.
// RUN: lamina-opt %s --split-input-file --parsing-diagnostics --verify-diagnostics | filecheck %s

func.func @narrow_float_count(%x: tensor<6xf32>, %c: tensor<f32>) {
  // CHECK: relay.narrow: count must be an i64 scalar (tensor<i64>), got tensor<f32>
  %0 = relay.narrow %x, %c {axis = 0 : i64, size = "k"} : (tensor<6xf32>, tensor<f32>)
  func.return
}

// -----

func.func @narrow_vector_count(%x: tensor<6xf32>, %c: tensor<2xi64>) {
  // CHECK: relay.narrow: count must be an i64 scalar (tensor<i64>), got tensor<2xi64>
  %0 = relay.narrow %x, %c {axis = 0 : i64, size = "k"} : (tensor<6xf32>, tensor<2xi64>)
  func.return
}

// -----

func.func @narrow_one_element_count(%x: tensor<6xf32>, %c: tensor<1xi64>) {
  // CHECK: relay.narrow: count must be an i64 scalar (tensor<i64>), got tensor<1xi64>
  %0 = relay.narrow %x, %c {axis = 0 : i64, size = "k"} : (tensor<6xf32>, tensor<1xi64>)
  func.return
}

// -----

func.func @narrow_i32_count(%x: tensor<6xf32>, %c: tensor<i32>) {
  // CHECK: relay.narrow: count must be an i64 scalar (tensor<i64>), got tensor<i32>
  %0 = relay.narrow %x, %c {axis = 0 : i64, size = "k"} : (tensor<6xf32>, tensor<i32>)
  func.return
}

// -----

func.func @narrow_bad_size(%x: tensor<6xf32>, %c: tensor<i64>) {
  // CHECK: relay.narrow: size must name a size (an identifier), got "2k"
  %0 = relay.narrow %x, %c {axis = 0 : i64, size = "2k"} : (tensor<6xf32>, tensor<i64>)
  func.return
}

// -----

func.func @narrow_size_expression(%x: tensor<6xf32>, %c: tensor<i64>) {
  // CHECK: relay.narrow: size must name a size (an identifier), got "k + 1"
  %0 = relay.narrow %x, %c {axis = 0 : i64, size = "k + 1"} : (tensor<6xf32>, tensor<i64>)
  func.return
}

// -----

func.func @narrow_axis(%x: tensor<6xf32>, %c: tensor<i64>) {
  // CHECK: relay.narrow: axis 1 is out of range for a rank-1 tensor (expected -1 <= axis < 1)
  %0 = relay.narrow %x, %c {axis = 1 : i64, size = "k"} : (tensor<6xf32>, tensor<i64>)
  func.return
}

// -----

func.func @nonzero_scalar(%x: tensor<f32>) {
  // CHECK: relay.nonzero: data must have rank >= 1 (reshape a scalar to [1])
  %0, %1 = relay.nonzero %x : (tensor<f32>)
  func.return
}

// -----

func.func @nms_boxes_scores(%b: tensor<1x5x4xf32>, %s: tensor<1x2x6xf32>, %k: tensor<i64>, %iou: tensor<f32>, %t: tensor<f32>) {
  // CHECK: relay.non_max_suppression: scores must be [batch, classes, boxes] = [1, C, 5], got tensor<1x2x6xf32>
  %0, %1 = relay.non_max_suppression %b, %s, %k, %iou, %t : (tensor<1x5x4xf32>, tensor<1x2x6xf32>, tensor<i64>, tensor<f32>, tensor<f32>)
  func.return
}

// -----

func.func @nms_batches(%b: tensor<2x5x4xf32>, %s: tensor<1x2x5xf32>, %k: tensor<i64>, %iou: tensor<f32>, %t: tensor<f32>) {
  // CHECK: relay.non_max_suppression: scores must be [batch, classes, boxes] = [2, C, 5], got tensor<1x2x5xf32>
  %0, %1 = relay.non_max_suppression %b, %s, %k, %iou, %t : (tensor<2x5x4xf32>, tensor<1x2x5xf32>, tensor<i64>, tensor<f32>, tensor<f32>)
  func.return
}

// -----

func.func @nms_box_width(%b: tensor<1x5x3xf32>, %s: tensor<1x2x5xf32>, %k: tensor<i64>, %iou: tensor<f32>, %t: tensor<f32>) {
  // CHECK: relay.non_max_suppression: boxes must be [batch, boxes, 4], got tensor<1x5x3xf32>
  %0, %1 = relay.non_max_suppression %b, %s, %k, %iou, %t : (tensor<1x5x3xf32>, tensor<1x2x5xf32>, tensor<i64>, tensor<f32>, tensor<f32>)
  func.return
}

// -----

func.func @nms_types(%b: tensor<1x5x4xf32>, %s: tensor<1x2x5xf16>, %k: tensor<i64>, %iou: tensor<f32>, %t: tensor<f32>) {
  // CHECK: relay.non_max_suppression: scores must be float tensors of one type, got tensor<1x2x5xf16>
  %0, %1 = relay.non_max_suppression %b, %s, %k, %iou, %t : (tensor<1x5x4xf32>, tensor<1x2x5xf16>, tensor<i64>, tensor<f32>, tensor<f32>)
  func.return
}

// -----

func.func @nms_iou_int(%b: tensor<1x5x4xf32>, %s: tensor<1x2x5xf32>, %k: tensor<i64>, %iou: tensor<i64>, %t: tensor<f32>) {
  // CHECK: relay.non_max_suppression: iou_threshold must be one float element, got tensor<i64>
  %0, %1 = relay.non_max_suppression %b, %s, %k, %iou, %t : (tensor<1x5x4xf32>, tensor<1x2x5xf32>, tensor<i64>, tensor<i64>, tensor<f32>)
  func.return
}

// -----

func.func @unique_1d(%x: tensor<6xf32>) {
  // CHECK: relay.unique: data must be 2-D (rows to compare), got tensor<6xf32>
  %0, %1, %2, %3, %4 = relay.unique %x : (tensor<6xf32>)
  func.return
}

// -----

func.func @unique_bool(%x: tensor<6x1xi1>) {
  // CHECK: relay.unique: needs a numeric tensor, got tensor<6x1xi1>
  %0, %1, %2, %3, %4 = relay.unique %x : (tensor<6x1xi1>)
  func.return
}

// -----

func.func @tir_count_type(%c: memref<1xi64>) {
  // CHECK: tir.set_size: count must be a memref<i64>, got memref<1xi64>
  tir.set_size "nz" = %c, bound "6" : memref<1xi64>
  func.return
}

// -----

func.func @tir_count_i32(%c: memref<i32>) {
  // CHECK: tir.set_size: count must be a memref<i64>, got memref<i32>
  tir.set_size "nz" = %c, bound "6" : memref<i32>
  func.return
}

// -----

func.func @tir_bound_on_itself(%c: memref<i64>) {
  // CHECK: tir.set_size: the bound of 'nz' cannot depend on itself
  tir.set_size "nz" = %c, bound "nz + 1" : memref<i64>
  func.return
}

// -----

func.func @tir_bad_name(%c: memref<i64>) {
  // CHECK: tir.set_size: 'n z' is not a size name
  tir.set_size "n z" = %c, bound "6" : memref<i64>
  func.return
}

// -----

func.func @te_bound_on_itself(%c: tensor<i64>) {
  // CHECK: te.set_size: the bound of 'nz' cannot depend on itself
  te.set_size "nz" = %c, bound "2*nz" : tensor<i64>
  func.return
}

// -----

func.func @te_bad_bound(%c: tensor<i64>) {
  // CHECK: te.set_size: bound '6 ** 2' is not a size expression: '6 ** 2' is not a dimension expression (names, integers, +, -, * and //)
  te.set_size "nz" = %c, bound "6 ** 2" : tensor<i64>
  func.return
}
