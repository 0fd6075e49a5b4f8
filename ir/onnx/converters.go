package onnx

// builtinConverters are the converters this package registers: op type,
// the first opset each serves, how many leading inputs must be present
// tensors (convertNode checks them, with one wording of the error, before
// the converter runs) and the converter.
var builtinConverters = []convEntry{
	// ops_attention.go
	{op: "Attention", since: 23, inputs: 3, fn: convAttention},
	// ops_causalconv.go
	{op: "CausalConvWithState", since: 27, inputs: 2, fn: convCausalConvWithState},
	// ops_col2im.go
	{op: "Col2Im", since: 18, inputs: 3, fn: convCol2Im},
	// ops_control.go
	{op: "If", since: 1, inputs: 1, fn: convIf},
	{op: "Scan", since: 8, inputs: 0, fn: convScan8},
	{op: "Scan", since: 9, inputs: 0, fn: convScan},
	{op: "Loop", since: 1, inputs: 0, fn: convLoop},
	// ops_datadep.go
	{op: "Compress", since: 9, inputs: 2, fn: convCompress},
	{op: "NonZero", since: 9, inputs: 1, fn: convNonZero},
	{op: "Unique", since: 11, inputs: 1, fn: convUnique},
	// ops_deformconv.go
	{op: "DeformConv", since: 19, inputs: 3, fn: convDeformConv},
	// ops_det.go
	{op: "Det", since: 11, inputs: 1, fn: convDet},
	// ops_dft.go
	{op: "DFT", since: 17, inputs: 1, fn: convDFT},
	// ops_einsum.go
	{op: "Einsum", since: 12, inputs: 0, fn: convEinsum},
	// ops_elementwise.go
	{op: "Div", since: 1, inputs: 2, fn: convDiv},
	{op: "Identity", since: 1, inputs: 0, fn: identity},
	{op: "Pow", since: 1, inputs: 2, fn: convPow},
	{op: "Mod", since: 10, inputs: 2, fn: convMod},
	{op: "BitShift", since: 11, inputs: 2, fn: convBitShift},
	{op: "Clip", since: 1, inputs: 1, fn: convClip},
	// ops_gridsample.go
	{op: "GridSample", since: 16, inputs: 2, fn: convGridSample},
	{op: "AffineGrid", since: 20, inputs: 0, fn: convAffineGrid},
	// ops_linattn.go
	{op: "LinearAttention", since: 27, inputs: 3, fn: convLinearAttention},
	// ops_maxunpool.go
	{op: "MaxUnpool", since: 9, inputs: 2, fn: convMaxUnpool},
	// ops_mel.go
	{op: "MelWeightMatrix", since: 17, inputs: 5, fn: convMelWeightMatrix},
	// ops_more.go
	{op: "Pad", since: 1, inputs: 1, fn: convPad},
	{op: "GroupNormalization", since: 18, inputs: 3, fn: convGroupNorm},
	{op: "CenterCropPad", since: 18, inputs: 2, fn: convCenterCropPad},
	// ops_nms.go
	{op: "NonMaxSuppression", since: 10, inputs: 2, fn: convNMS},
	// ops_nn.go
	{op: "Conv", since: 1, inputs: 0, fn: convConv},
	{op: "ConvTranspose", since: 1, inputs: 2, fn: convConvTranspose},
	{op: "BatchNormalization", since: 1, inputs: 5, fn: convBatchNorm},
	{op: "InstanceNormalization", since: 1, inputs: 3, fn: convInstanceNorm},
	{op: "LayerNormalization", since: 17, inputs: 2, fn: convLayerNorm},
	{op: "Gemm", since: 1, inputs: 2, fn: convGemm},
	{op: "Resize", since: 10, inputs: 1, fn: convResize},
	{op: "Upsample", since: 9, inputs: 1, fn: convResize},
	// ops_quant.go
	{op: "QuantizeLinear", since: 10, inputs: 2, fn: convQuantize},
	{op: "DequantizeLinear", since: 10, inputs: 2, fn: convDequantize},
	{op: "DynamicQuantizeLinear", since: 11, inputs: 1, fn: convDynamicQuantize},
	// ops_reduce.go
	{op: "TopK", since: 1, inputs: 1, fn: convTopK},
	// ops_reverse.go
	{op: "ReverseSequence", since: 10, inputs: 2, fn: convReverseSequence},
	// ops_roialign.go
	{op: "RoiAlign", since: 10, inputs: 3, fn: convRoiAlign},
	// ops_rotary.go
	{op: "RotaryEmbedding", since: 23, inputs: 3, fn: convRotary},
	// ops_scatter.go
	{op: "GatherND", since: 11, inputs: 2, fn: convGatherND},
	{op: "ScatterElements", since: 11, inputs: 3, fn: convScatterElements},
	{op: "Scatter", since: 9, inputs: 3, fn: convScatterElements},
	{op: "ScatterND", since: 11, inputs: 3, fn: convScatterND},
	// ops_shape.go
	{op: "Constant", since: 1, inputs: 0, fn: convConstant},
	{op: "ConstantOfShape", since: 9, inputs: 0, fn: convConstantOfShape},
	{op: "Shape", since: 1, inputs: 1, fn: convShape},
	{op: "Reshape", since: 1, inputs: 1, fn: convReshape},
	{op: "Flatten", since: 1, inputs: 1, fn: convFlatten},
	{op: "Squeeze", since: 1, inputs: 1, fn: convSqueeze},
	{op: "Unsqueeze", since: 1, inputs: 1, fn: convUnsqueeze},
	{op: "Concat", since: 1, inputs: 0, fn: convConcat},
	{op: "Split", since: 1, inputs: 1, fn: convSplit},
	{op: "Slice", since: 1, inputs: 1, fn: convSlice},
	{op: "Gather", since: 1, inputs: 2, fn: convGather},
	{op: "Expand", since: 8, inputs: 2, fn: convExpand},
	{op: "Range", since: 11, inputs: 3, fn: convRange},
	{op: "OneHot", since: 9, inputs: 3, fn: convOneHot},
	// ops_stft.go
	{op: "STFT", since: 17, inputs: 2, fn: convSTFT},
	// ops_tensorscatter.go
	{op: "TensorScatter", since: 24, inputs: 2, fn: convTensorScatter},
}
