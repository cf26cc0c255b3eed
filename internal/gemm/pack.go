package gemm

// packABlock writes the panels of rows i..i+mc of alpha op(a) over terms
// p..p+kc into dst, panel after panel as panelRows cuts them, each as
// packA writes it into its slot of gemmMR x kc values. A transposed a is
// read term by term across the leading 6-row panels, along its rows,
// rather than panel by panel down its columns.
func packABlock[F Float](dst []F, transA bool, alpha F, a []F, lda, i, mc, p, kc int) {
	lead := leadRows(mc)
	if transA && alpha == 1 && lead > 0 {
		_ = dst[lead*kc-1] // the last chunk of the last panel
		for l := range kc {
			row := a[(p+l)*lda+i:][:lead]
			scatter(&dst[l*gemmMR], gemmMR*kc, &row[0], gemmMR, lead/gemmMR)
		}
	} else {
		for ir := 0; ir < lead; ir += gemmMR {
			packA(dst[ir*kc:(ir+gemmMR)*kc], transA, alpha, a, lda, i+ir, gemmMR, p, kc)
		}
	}
	slot := lead / gemmMR
	for ir := lead; ir < mc; slot++ {
		rows := panelRows(mc - ir)
		packA(dst[slot*gemmMR*kc:(slot+1)*gemmMR*kc], transA, alpha, a, lda, i+ir, rows, p, kc)
		ir += rows
	}
}

// panelRows is the number of rows of the next panel when rem rows are
// left: gemmMR, except at the end, where 4 + 4 rows take the 4-row kernel
// twice instead of the 6-row one and a 4-row one for 6 + 2, 4 + 3 rows
// instead of 6 + 1, and so on.
func panelRows(rem int) int {
	switch {
	case rem == gemmMR || rem > 8:
		return gemmMR
	case rem == 5 || rem < 4:
		return rem
	default: // 4, 7, 8
		return 4
	}
}

// leadRows is the number of rows of a block of mc rows in its leading
// panels of gemmMR rows (panelRows).
func leadRows(mc int) int {
	lead := 0
	for mc-lead > 8 || mc-lead == gemmMR {
		lead += gemmMR
	}
	return lead
}

// packBBlock writes the panels of columns j..j+nc of op(b) over terms
// p..p+kc into dst, panel after panel, each as packB writes it. A b not
// transposed is read term by term across all the panels, along its rows.
func packBBlock[F Float](dst []F, nr int, transB bool, b []F, ldb, p, kc, j, nc int) {
	full := nc - nc%nr
	switch {
	case transB:
		for jr := 0; jr < full; jr += nr {
			packB(dst[jr*kc:(jr+nr)*kc], nr, transB, b, ldb, p, kc, j+jr, nr)
		}
	case full > 0:
		_ = dst[full*kc-1] // the last chunk of the last panel
		for l := range kc {
			row := b[(p+l)*ldb+j:][:full]
			scatter(&dst[l*nr], nr*kc, &row[0], nr, full/nr)
		}
	}
	if full < nc {
		packB(dst[full*kc:(full+nr)*kc], nr, transB, b, ldb, p, kc, j+full, nc-full)
	}
}

// packA writes the panel of rows i..i+rows of alpha op(a) over terms
// p..p+kc into dst as [kc][gemmMR], zero past the last row.
func packA[F Float](dst []F, transA bool, alpha F, a []F, lda, i, rows, p, kc int) {
	dst = dst[:kc*gemmMR]
	switch {
	case rows < gemmMR:
		clear(dst)
		for r := range rows {
			if transA {
				for l := range kc {
					dst[l*gemmMR+r] = alpha * a[(p+l)*lda+i+r]
				}
				continue
			}
			for l, v := range a[(i+r)*lda+p:][:kc] {
				dst[l*gemmMR+r] = alpha * v
			}
		}
	case transA && alpha == 1:
		packABlock(dst, transA, alpha, a, lda, i, gemmMR, p, kc)
	case transA:
		for l := range kc {
			s, d := a[(p+l)*lda+i:][:gemmMR], dst[l*gemmMR:][:gemmMR]
			d[0], d[1], d[2], d[3], d[4], d[5] = alpha*s[0], alpha*s[1], alpha*s[2], alpha*s[3], alpha*s[4], alpha*s[5]
		}
	default: // six rows at a time: one short write per term
		l0 := 0
		if alpha == 1 {
			l0 = packT(dst, gemmMR, a[i*lda+p:], lda, kc)
		}
		r0 := a[i*lda+p:][:kc]
		r1 := a[(i+1)*lda+p:][:kc]
		r2 := a[(i+2)*lda+p:][:kc]
		r3 := a[(i+3)*lda+p:][:kc]
		r4 := a[(i+4)*lda+p:][:kc]
		r5 := a[(i+5)*lda+p:][:kc]
		for l := l0; l < kc; l++ {
			d := dst[l*gemmMR:][:gemmMR]
			d[0], d[1], d[2], d[3], d[4], d[5] = alpha*r0[l], alpha*r1[l], alpha*r2[l], alpha*r3[l], alpha*r4[l], alpha*r5[l]
		}
	}
}

// opA is entry (r, l) of op(a).
func opA[F Float](transA bool, a []F, lda, r, l int) F {
	if transA {
		return a[l*lda+r]
	}
	return a[r*lda+l]
}

// packB writes the panel of columns j..j+cols of op(b) over terms p..p+kc
// into dst as [kc][nr], zero past the last column.
func packB[F Float](dst []F, nr int, transB bool, b []F, ldb, p, kc, j, cols int) {
	dst = dst[:kc*nr]
	switch {
	case cols < nr:
		clear(dst)
		for q := range cols {
			for l := range kc {
				dst[l*nr+q] = opB(transB, b, ldb, p+l, j+q)
			}
		}
	case !transB:
		packBBlock(dst, nr, transB, b, ldb, p, kc, j, nr)
	default:
		for l := packT(dst, nr, b[j*ldb+p:], ldb, kc); l < kc; l++ {
			for q := range nr {
				dst[l*nr+q] = b[(j+q)*ldb+p+l]
			}
		}
	}
}

// opB is entry (l, j) of op(b).
func opB[F Float](transB bool, b []F, ldb, l, j int) F {
	if transB {
		return b[j*ldb+l]
	}
	return b[l*ldb+j]
}
