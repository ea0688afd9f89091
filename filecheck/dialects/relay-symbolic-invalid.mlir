// Invalid symbolic shapes, one per chunk.
// RUN: lamina-opt %s --split-input-file --parsing-diagnostics --verify-diagnostics | filecheck %s

func.func @unnamed(%x: tensor<?x4xf32>) {
  // CHECK: relay.relu: operand #0: tensor<?x4xf32> has 1 dynamic dimension(s) but names 0; give each '?' a name
  %0 = relay.relu %x : (tensor<?x4xf32>)
  func.return
}

// -----

func.func @bad_name(%x: tensor<?x4xf32, ["2 ** n"]>) {
  // CHECK: relay.relu: operand #0: '2 ** n' is not a dimension expression (names, integers, +, -, * and //)
  %0 = relay.relu %x : (tensor<?x4xf32, ["2 ** n"]>)
  func.return
}

// -----

func.func @two_sizes(%x: tensor<?x4xf32, ["n"]>, %y: tensor<?x4xf32, ["m"]>) {
  // CHECK: relay.add: shapes nx4 and mx4 do not broadcast (dimension 0 of the result would be one of [m, n])
  %0 = relay.add %x, %y : (tensor<?x4xf32, ["n"]>, tensor<?x4xf32, ["m"]>)
  func.return
}

// -----

func.func @size_or_one(%x: tensor<?x4xf32, ["n"]>, %y: tensor<3x4xf32>) {
  // CHECK: relay.add: shapes nx4 and 3x4 do not broadcast (dimension 0 of the result would be one of [3, n])
  %0 = relay.add %x, %y : (tensor<?x4xf32, ["n"]>, tensor<3x4xf32>)
  func.return
}

// -----

func.func @reshape_count(%x: tensor<?x4xf32, ["n"]>) {
  // CHECK: relay.reshape: cannot reshape [n, 4] (4*n elements) to [n, 2] (2*n elements)
  %0 = relay.reshape %x {shape = ["n", 2]} : (tensor<?x4xf32, ["n"]>)
  func.return
}

// -----

func.func @dims_name(%x: tensor<2xf32>) {
  // CHECK: relay.dims: dims: '3n' is not a dimension expression
  %0 = relay.dims {dims = ["3n"]} : ()
  func.return
}
