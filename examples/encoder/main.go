// Command encoder runs a BERT-style transformer encoder (two layers of
// torch.nn.TransformerEncoder, d_model 128, 4 heads) that arrives as an ONNX
// file exported from PyTorch: relaxgo imports model.onnx directly and
// compiles it into the Go package ./model, called here in compiled mode and
// in bytecode mode.
package main

//go:generate go run github.com/relaxgo/relaxgo/cmd/relaxgo gen --pkg model -o model model.onnx

import (
	"log"

	"github.com/relaxgo/relaxgo/examples/encoder/model"
	"github.com/relaxgo/relaxgo/examples/internal/demo"
)

func main() {
	x := demo.Input(1, 32, 128)
	y, err := model.Main(x)
	if err != nil {
		log.Fatal(err)
	}
	demo.Report(y, demo.Bytecode(demo.Must(model.Default()), "main", x))
}
