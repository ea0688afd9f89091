// BYOC targets compile static shapes (unless registered `symbolic=True`): an op
// over symbolic dims is not offloaded, and explain=true says why.
// RUN: lamina-opt %s -p 'annotate-target{targets=c explain=true}' 2>/dev/null | filecheck %s

// CHECK:      %0 = relay.relu %a {lamina.target = "c"} : tensor<4xf32>
// CHECK-NEXT: %1 = relay.relu %b {lamina.rejected = "c: c compiles static shapes only, and relay.relu has symbolic dims"} : tensor<?xf32, ["n"]>
func.func @main(%a: tensor<4xf32>, %b: tensor<?xf32, ["n"]>) -> (tensor<4xf32>, tensor<?xf32, ["n"]>) {
  %0 = relay.relu %a : (tensor<4xf32>)
  %1 = relay.relu %b : (tensor<?xf32, ["n"]>)
  func.return %0, %1 : tensor<4xf32>, tensor<?xf32, ["n"]>
}
