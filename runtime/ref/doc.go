// Package ref holds the math/big.Float references that the executors and
// the Newton driver are tested against: straightforward algorithms at far
// more bits than the working precision, sharing no code with what they check.
package ref
