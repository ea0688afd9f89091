// RUN: python %S/recurrent_model.py LSTM bidirectional %t.lstm.onnx --lens
// RUN: lamina compile %t.lstm.onnx --emit relay -O 0 | filecheck %s --check-prefix=LSTM
// RUN: python %S/recurrent_model.py GRU forward %t.gru.onnx
// RUN: lamina compile %t.gru.onnx --emit relay -O 0 | filecheck %s --check-prefix=GRU
// RUN: python %S/recurrent_model.py GRU reverse %t.gru-lbr.onnx linear_before_reset=1
// RUN: lamina compile %t.gru-lbr.onnx --emit relay -O 0 | filecheck %s --check-prefix=LBR

// ONNX RNN, GRU and LSTM import to one relay.loop over the sequence (here a
// symbolic `seq`), both directions stepping together. Before the loop: the
// reverse direction's input reversed per entry up to its length, the input
// projection of every step and direction as one batched relay.matmul plus
// the biases, laid out [dirs, seq, batch, gates * hidden], and R transposed. The body:
// the step's row (relay.take at the iteration), h @ R^T as one batched
// relay.matmul, the gates; past an entry's length the state is kept
// (relay.where on i < length). The hidden state is carried and stacked (the
// last yielded value); after the loop, Y is masked past each length and the
// reverse direction reversed back; Y_h and Y_c are the final states, zero for
// an entry of length 0.

// LSTM-LABEL: func.func @main
// LSTM-SAME:     %x: tensor<?x2x3xf32, ["seq"]>
// LSTM:          %[[LENS:.*]] = relay.cast %lens {dtype = i64}
// LSTM:          %[[REV:.*]] = relay.reverse_sequence %x, %[[LENS]] {batch_axis = 1 : i64, time_axis = 0 : i64}
// LSTM:          %[[WT:.*]] = relay.reshape %{{.*}} {shape = array<i64: 2, 1, 3, 16>} : (tensor<2x3x16xf32>) -> tensor<2x1x3x16xf32>
// LSTM:          %[[BOTH:.*]] = relay.concatenate %{{.*}}, %{{.*}} {axis = 0 : i64} : {{.*}} -> tensor<2x?x2x3xf32, ["seq"]>
// LSTM:          %[[PROJ:.*]] = relay.matmul %[[BOTH]], %[[WT]] : (tensor<2x?x2x3xf32, ["seq"]>, tensor<2x1x3x16xf32>) -> tensor<2x?x2x16xf32, ["seq"]>
// LSTM:          %[[RT:.*]] = relay.transpose %r {perm = array<i64: 0, 2, 1>} : (tensor<2x16x4xf32>) -> tensor<2x4x16xf32>
// LSTM:          %[[XW:.*]] = relay.add %[[PROJ]], %{{.*}} : (tensor<2x?x2x16xf32, ["seq"]>, tensor<2x1x1x16xf32>)
// LSTM:          %[[TRIPS:.*]] = relay.reshape %{{.*}} {shape = array<i64>} : (tensor<1xi64>) -> tensor<i64>
// LSTM:          %[[H:.*]], %[[C:.*]], %[[STACK:.*]], %{{.*}} = relay.loop(%[[TRIPS]], %{{.*}}, %{{.*}}, %{{.*}}, %[[XW]], %[[RT]], %{{.*}}) {
// LSTM-NEXT:     ^bb0(%[[I:.*]]: tensor<i64>, %[[GO:.*]]: tensor<i1>, %[[H0:.*]]: tensor<2x2x4xf32>, %[[C0:.*]]: tensor<2x2x4xf32>, %[[XS:.*]]: tensor<2x?x2x16xf32, ["seq"]>, %[[R:.*]]: tensor<2x4x16xf32>, %[[L:.*]]: tensor<2x1xi64>):
// LSTM-NEXT:       %[[ROW:.*]] = relay.take %[[XS]], %[[I]] {axis = 1 : i64} : (tensor<2x?x2x16xf32, ["seq"]>, tensor<i64>) -> tensor<2x2x16xf32>
// LSTM-NEXT:       %[[HR:.*]] = relay.matmul %[[H0]], %[[R]] : (tensor<2x2x4xf32>, tensor<2x4x16xf32>) -> tensor<2x2x16xf32>
// LSTM-NEXT:       %[[PRE:.*]] = relay.add %[[ROW]], %[[HR]] : tensor<2x2x16xf32>
// LSTM-COUNT-4:    relay.strided_slice %[[PRE]]
// LSTM:            %[[CNEW:.*]] = relay.add
// LSTM:            %[[HNEW:.*]] = relay.multiply
// LSTM-NEXT:       %[[LIVE:.*]] = relay.less %[[I]], %[[L]] : (tensor<i64>, tensor<2x1xi64>) -> tensor<2x1xi1>
// LSTM-NEXT:       %[[HK:.*]] = relay.where %[[LIVE]], %[[HNEW]], %[[H0]]
// LSTM-NEXT:       %[[CK:.*]] = relay.where %[[LIVE]], %[[CNEW]], %[[C0]]
// LSTM-NEXT:       relay.yield %[[GO]], %[[HK]], %[[CK]], %[[HK]] : tensor<i1>, tensor<2x2x4xf32>, tensor<2x2x4xf32>, tensor<2x2x4xf32>
// LSTM-NEXT:     } {carried = 2 : i64, max_trips = ["seq"]}
// LSTM:          %[[T:.*]] = relay.arange {size = ["seq"], start = 0 : i64, step = 1 : i64}
// LSTM:          %[[VALID:.*]] = relay.less
// LSTM:          %[[MASKED:.*]] = relay.where %[[VALID]], %[[STACK]], %{{.*}} : (tensor<?x1x2x1xi1, ["seq"]>, tensor<?x2x2x4xf32, ["seq"]>, tensor<f32>)
// LSTM:          %[[FWD:.*]] = relay.strided_slice %[[MASKED]] {begin = array<i64: 0, 0, 0, 0>, end = ["seq", 1 : i64, 2 : i64, 4 : i64]}
// LSTM:          %[[BWD:.*]] = relay.strided_slice %[[MASKED]] {begin = array<i64: 0, 1, 0, 0>, end = ["seq", 2 : i64, 2 : i64, 4 : i64]}
// LSTM:          %[[BACK:.*]] = relay.reverse_sequence %[[BWD]], %[[LENS]] {batch_axis = 2 : i64, time_axis = 0 : i64}
// LSTM:          %y = relay.concatenate %[[FWD]], %[[BACK]] {axis = 1 : i64}
// LSTM:          %y_h = relay.where %{{.*}}, %[[H]], %{{.*}}
// LSTM:          %y_c = relay.where %{{.*}}, %[[C]], %{{.*}}
// LSTM:          func.return %y, %y_h, %y_c

// A GRU without linear_before_reset: h @ [Rz Rr]^T, then (r * h) @ Rh^T.
// GRU-LABEL: func.func @main
// GRU:           %[[RT:.*]] = relay.transpose %r {perm = array<i64: 0, 2, 1>} : (tensor<1x12x4xf32>) -> tensor<1x4x12xf32>
// GRU-DAG:       %[[RZR:.*]] = relay.strided_slice %[[RT]] {begin = array<i64: 0, 0, 0>, end = array<i64: 1, 4, 8>}
// GRU-DAG:       %[[RH:.*]] = relay.strided_slice %[[RT]] {begin = array<i64: 0, 0, 8>, end = array<i64: 1, 4, 12>}
// GRU:           relay.loop(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[RZR]], %[[RH]]) {
// GRU-NEXT:      ^bb0(%{{.*}}: tensor<i64>, %{{.*}}: tensor<i1>, %[[H:.*]]: tensor<1x2x4xf32>, %{{.*}}: tensor<1x?x2x12xf32, ["seq"]>, %[[A:.*]]: tensor<1x4x8xf32>, %[[B:.*]]: tensor<1x4x4xf32>):
// GRU:             relay.matmul %[[H]], %[[A]] : (tensor<1x2x4xf32>, tensor<1x4x8xf32>) -> tensor<1x2x8xf32>
// GRU:             %[[RESET:.*]] = relay.strided_slice %{{.*}} {begin = array<i64: 0, 0, 4>, end = array<i64: 1, 2, 8>}
// GRU:             %[[RH2:.*]] = relay.multiply %[[RESET]], %[[H]]
// GRU-NEXT:        relay.matmul %[[RH2]], %[[B]] : (tensor<1x2x4xf32>, tensor<1x4x4xf32>) -> tensor<1x2x4xf32>
// GRU:             relay.yield
// GRU-NEXT:      } {carried = 1 : i64, max_trips = ["seq"]}
// GRU-NOT:       relay.reverse_sequence

// linear_before_reset: Rbh stays out of the projection's bias (its h gate
// gets Wbh alone) and is added to h @ Rh^T in the body, inside the reset; a
// reverse direction alone is reversed in and out.
// LBR-LABEL: func.func @main
// LBR:           relay.reverse_sequence %x
// LBR:           %[[RBH:.*]] = relay.reshape %{{.*}} {shape = array<i64: 1, 1, 4>} : (tensor<1x4xf32>) -> tensor<1x1x4xf32>
// LBR:           relay.loop(
// LBR:             %[[HR:.*]] = relay.matmul %{{.*}}, %{{.*}} : (tensor<1x2x4xf32>, tensor<1x4x12xf32>) -> tensor<1x2x12xf32>
// LBR:             %[[HH:.*]] = relay.strided_slice %[[HR]] {begin = array<i64: 0, 0, 8>, end = array<i64: 1, 2, 12>}
// LBR-NEXT:        %[[HB:.*]] = relay.add %[[HH]], %{{.*}} : (tensor<1x2x4xf32>, tensor<1x1x4xf32>)
// LBR-NEXT:        relay.multiply %{{.*}}, %[[HB]]
// LBR:           } {carried = 1 : i64, max_trips = ["seq"]}
// LBR:           %y = relay.reverse_sequence
