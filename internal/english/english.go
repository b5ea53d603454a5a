// Package english writes the small agreements of generated English text.
package english

// Agree is the form of a noun or verb that agrees with the count n: one when
// n is 1 ("1 differs", "1 p-value"), else many ("0 differ", "2 p-values").
func Agree(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
