package runtime

import (
	"math"
	"slices"
	"time"
)

// TimingResult holds the samples of a TimeEvaluator run: one mean time per
// run for each repeat.
type TimingResult struct {
	Samples []time.Duration // per-run time of each repeat
	Number  int             // runs per repeat in the last repeat (after min_repeat_ms scaling)
}

// Mean is the mean of the samples.
func (r *TimingResult) Mean() time.Duration {
	if len(r.Samples) == 0 {
		return 0
	}
	var s float64
	for _, d := range r.Samples {
		s += float64(d)
	}
	return time.Duration(s / float64(len(r.Samples)))
}

// Median is the median of the samples.
func (r *TimingResult) Median() time.Duration {
	if len(r.Samples) == 0 {
		return 0
	}
	s := slices.Clone(r.Samples)
	slices.Sort(s)
	if n := len(s); n%2 == 0 {
		return (s[n/2-1] + s[n/2]) / 2
	}
	return s[len(s)/2]
}

// Min is the smallest sample.
func (r *TimingResult) Min() time.Duration {
	if len(r.Samples) == 0 {
		return 0
	}
	return slices.Min(r.Samples)
}

// Max is the largest sample.
func (r *TimingResult) Max() time.Duration {
	if len(r.Samples) == 0 {
		return 0
	}
	return slices.Max(r.Samples)
}

// Std is the population standard deviation of the samples.
func (r *TimingResult) Std() time.Duration {
	if len(r.Samples) == 0 {
		return 0
	}
	m := float64(r.Mean())
	var v float64
	for _, d := range r.Samples {
		v += (float64(d) - m) * (float64(d) - m)
	}
	return time.Duration(math.Sqrt(v / float64(len(r.Samples))))
}

// TimeEvaluator returns a function that times name (a function of the
// executable or a saved function) as TVM's time_evaluator does: one discarded
// warm-up call, then repeat samples of number calls each; when a sample takes
// less than minRepeatMs milliseconds, number grows (by at least the golden
// ratio) and the sample is retaken.
func (vm *VM) TimeEvaluator(name string, number, repeat, minRepeatMs int) func(args ...Value) (*TimingResult, error) {
	return func(args ...Value) (*TimingResult, error) {
		if _, err := vm.Invoke(name, args...); err != nil {
			return nil, err
		}
		number := max(number, 1)
		res := &TimingResult{}
		for i := 0; i < repeat; i++ {
			var elapsed time.Duration
			zero := 0
			for {
				if elapsed > 0 {
					perRun := float64(elapsed) / float64(number)
					number = int(math.Max(float64(minRepeatMs)*1e6/perRun+1, float64(number)*1.618))
				}
				start := time.Now()
				for j := 0; j < number; j++ {
					if _, err := vm.Invoke(name, args...); err != nil {
						return nil, err
					}
				}
				elapsed = time.Since(start)
				if elapsed == 0 {
					zero++
				}
				if elapsed >= time.Duration(minRepeatMs)*time.Millisecond || zero >= 100 {
					break
				}
			}
			res.Samples = append(res.Samples, elapsed/time.Duration(number))
		}
		res.Number = number
		return res, nil
	}
}
