package golden

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Float is a float64 kept exactly. In JSON it is a string holding the hex
// of its IEEE-754 bits, which is what comparisons use, and its shortest
// decimal for reading: "0x3fe0000000000000 0.5".
type Float float64

// Bits returns f's IEEE-754 bits.
func (f Float) Bits() uint64 { return math.Float64bits(float64(f)) }

// String is f's JSON text without the quotes: bits in hex, then the decimal.
func (f Float) String() string {
	return fmt.Sprintf("%#016x %s", f.Bits(), strconv.FormatFloat(float64(f), 'g', -1, 64))
}

// MarshalJSON writes f as its String.
func (f Float) MarshalJSON() ([]byte, error) { return json.Marshal(f.String()) }

// UnmarshalJSON reads f from its String. The decimal must be the one of the
// bits: a file edited by hand in one half and not the other is an error.
func (f *Float) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("a float: want a string \"0x<16 hex digits> <decimal>\": %w", err)
	}
	hex, dec, ok := strings.Cut(s, " ")
	if !ok || !strings.HasPrefix(hex, "0x") || len(hex) != 18 {
		return fmt.Errorf("float %q: want \"0x<16 hex digits> <decimal>\"", s)
	}
	bits, err := strconv.ParseUint(hex[2:], 16, 64)
	if err != nil {
		return fmt.Errorf("float %q: bits: %w", s, err)
	}
	v := Float(math.Float64frombits(bits))
	if want := strconv.FormatFloat(float64(v), 'g', -1, 64); dec != want {
		return fmt.Errorf("float %q: the decimal %s is not that of the bits (%s)", s, dec, want)
	}
	*f = v
	return nil
}
