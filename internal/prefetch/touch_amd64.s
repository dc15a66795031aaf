#include "textflag.h"

// func Touch(p *uint32)
TEXT ·Touch(SB), NOSPLIT|NOFRAME, $0-8
	MOVQ p+0(FP), AX
	ORL $0, (AX)
	RET
