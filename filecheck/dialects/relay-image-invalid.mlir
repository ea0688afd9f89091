// Invalid image ops, one per chunk.
// RUN: lamina-opt %s --split-input-file --parsing-diagnostics --verify-diagnostics | filecheck %s

func.func @not_bytes(%d: tensor<?xi8, ["n"]>) {
  // CHECK: relay.image_shape: data must be the encoded image as a 1-D ui8 tensor, got tensor<?xi8, ["n"]>
  %s, %st = relay.image_shape %d : (tensor<?xi8, ["n"]>)
  func.return
}

// -----

func.func @two_d(%d: tensor<4x8xui8>) {
  // CHECK: relay.image_shape: data must be the encoded image as a 1-D ui8 tensor, got tensor<4x8xui8>
  %s, %st = relay.image_shape %d : (tensor<4x8xui8>)
  func.return
}

// -----

func.func @format(%d: tensor<8xui8>) {
  // CHECK: relay.image_shape: pixel_format must be one of RGB, BGR, Grayscale, got "CMYK"
  %s, %st = relay.image_shape %d {pixel_format = "CMYK"} : (tensor<8xui8>)
  func.return
}

// -----

func.func @channels(%d: tensor<8xui8>, %s: tensor<3xi64>) {
  // CHECK: relay.image_decode: pixel_format has 1 channel(s), but dims give 3
  %0, %1 = relay.image_decode %d, %s {sizes = ["h", "w", ""], dims = ["h", "w", 3], pixel_format = "Grayscale"} : (tensor<8xui8>, tensor<3xi64>)
  func.return
}

// -----

func.func @static_width(%d: tensor<8xui8>, %s: tensor<3xi64>) {
  // CHECK: relay.image_decode: the height and width are sizes it sets, the channels are not: sizes = ['h', '', '']
  %0, %1 = relay.image_decode %d, %s {sizes = ["h", "", ""], dims = ["h", 4, 3]} : (tensor<8xui8>, tensor<3xi64>)
  func.return
}

// -----

func.func @rank(%d: tensor<8xui8>, %s: tensor<2xi64>) {
  // CHECK: relay.image_decode: shape must be [height, width, channels] (tensor<3xi64>), got tensor<2xi64>
  %0, %1 = relay.image_decode %d, %s {sizes = ["h", "w"], dims = ["h", "w"]} : (tensor<8xui8>, tensor<2xi64>)
  func.return
}
