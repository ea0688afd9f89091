// relay.image_shape reads an encoded image's header ([height, width, channels]
// and a status); relay.image_decode decodes it into a tensor whose height and
// width are sizes its shape operand sets. Custom and generic forms.
// RUN: %lamina_roundtrip | filecheck %s
// RUN: lamina-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

// CHECK-LABEL: func.func @decode(%d: tensor<?xui8, ["n"]>) -> (tensor<?x?x3xui8, ["h", "w"]>, tensor<i64>) {
// CHECK-NEXT:    %s, %st = relay.image_shape %d {pixel_format = "BGR"} : (tensor<?xui8, ["n"]>) -> (tensor<3xi64>, tensor<i64>)
// CHECK-NEXT:    %0, %1 = relay.image_decode %d, %s {sizes = ["h", "w", ""], dims = ["h", "w", 3 : i64], pixel_format = "BGR"} : (tensor<?xui8, ["n"]>, tensor<3xi64>) -> (tensor<?x?x3xui8, ["h", "w"]>, tensor<i64>)
// GENERIC: "relay.image_shape"(%d) <{pixel_format = "BGR"}> : (tensor<?xui8, ["n"]>) -> (tensor<3xi64>, tensor<i64>)
// GENERIC: "relay.image_decode"(%d, %s) <{sizes = ["h", "w", ""], dims = ["h", "w", 3 : i64], pixel_format = "BGR"}> : (tensor<?xui8, ["n"]>, tensor<3xi64>) -> (tensor<?x?x3xui8, ["h", "w"]>, tensor<i64>)
func.func @decode(%d: tensor<?xui8, ["n"]>) -> (tensor<?x?x3xui8, ["h", "w"]>, tensor<i64>) {
  %s, %st = relay.image_shape %d {pixel_format = "BGR"} : (tensor<?xui8, ["n"]>)
  %0, %1 = relay.image_decode %d, %s {sizes = ["h", "w", ""], dims = ["h", "w", 3], pixel_format = "BGR"} : (tensor<?xui8, ["n"]>, tensor<3xi64>)
  func.return %0, %1 : tensor<?x?x3xui8, ["h", "w"]>, tensor<i64>
}

// -----

// Grayscale: one channel; pixel_format defaults to RGB.
// CHECK-LABEL: func.func @gray(%d: tensor<100xui8>, %s: tensor<3xi64>) -> tensor<?x?x1xui8, ["h", "w"]> {
// CHECK-NEXT:    %0, %1 = relay.image_decode %d, %s {sizes = ["h", "w", ""], dims = ["h", "w", 1 : i64], pixel_format = "Grayscale"} : (tensor<100xui8>, tensor<3xi64>) -> (tensor<?x?x1xui8, ["h", "w"]>, tensor<i64>)
// CHECK-NEXT:    %2, %3 = relay.image_shape %d : (tensor<100xui8>) -> (tensor<3xi64>, tensor<i64>)
func.func @gray(%d: tensor<100xui8>, %s: tensor<3xi64>) -> tensor<?x?x1xui8, ["h", "w"]> {
  %0, %1 = relay.image_decode %d, %s {sizes = ["h", "w", ""], dims = ["h", "w", 1], pixel_format = "Grayscale"} : (tensor<100xui8>, tensor<3xi64>)
  %2, %3 = relay.image_shape %d : (tensor<100xui8>)
  func.return %0 : tensor<?x?x1xui8, ["h", "w"]>
}
