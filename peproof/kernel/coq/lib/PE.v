(** * PE: the sinusoidal positional encoding, for every even width and any frequencies

    The encoding of width [d = 2 n] with frequencies [w : Z -> R] (pair [i] has frequency
    [w i]) is [pe w p (2 i) = sin (w i * p)], [pe w p (2 i + 1) = cos (w i * p)].  The paper's
    frequencies [w i = 10000^(-2 i / d)] are one instance ([paper_freq]); nothing below depends
    on them except the last section.

    Main statements (all for every [n] / every even [d], and every [w]):
    - one pair: [pair_shift_sin], [pair_shift_cos] (the shift by [k] is the rotation by
      [w * k]), [pair_inner], [pair_norm], [sin_mul_sin], [cos_mul_cos], [sin_mul_cos];
    - the shift matrix [blk w k] (block diagonal, [d x d]): [pe_shift] ([PE(p+k) = M_k PE(p)]
      component by component), [blk_group] ([M_a M_b = M_(a+b)]), [blk_transpose]
      ([M_(-k) = M_k^T]), [blk_inverse] ([M_k M_k^T = I]), [blk_orthogonal] ([M_k^T M_k = I]),
      [blk_zero] ([M_0 = I]), and per block [shift_det] ([det = 1]);
    - sums over the pairs (any limits, SymPy's [Sum] semantics via [zsum]): [inner_sum],
      [inner_offset], [inner_depends_only_on_offset], [inner_even_in_offset], [norm_sum],
      [norm_half_d], [sum_sin_mul_sin], [sum_cos_mul_cos];
    - the paper's frequencies: [paper_freq_pos], [paper_freq_0], [paper_freq_decreasing],
      [paper_freq_as_rpow], and the [h - 1] family [hm1_freq_pos].

    Implementation notes: sums are [zsum] (Defs.v), so a registry statement
    [Sum(..., (i, 0, d/2 - 1))] instantiates these lemmas directly.  Every lemma on sums holds
    for ALL limits (the termwise identities hold for every index), except [norm_half_d], whose
    only condition is that [d] is even.  The block matrix is stated as its entries over [Z]
    indices; [pe_shift] and the others need [0 <= j < 2 n] for the index of a component.
    The determinant is proved per block ([shift_det]); the determinant of the [d x d] block
    diagonal matrix, a product of the blocks', is not formalised here.
*)

From Coq Require Import ZArith Reals Lia Lra.
From PEProof Require Import Defs.
Open Scope R_scope.

(** [lia] with [/] and [mod] by literals turned into equations. *)
Ltac zlia := Z.div_mod_to_equations; lia.

(** ** One pair *)

Lemma pair_shift_sin : forall w p k,
  sin (w * (p + k)) = cos (w * k) * sin (w * p) + sin (w * k) * cos (w * p).
Proof. intros; rewrite Rmult_plus_distr_l, sin_plus; ring. Qed.

Lemma pair_shift_cos : forall w p k,
  cos (w * (p + k)) = - sin (w * k) * sin (w * p) + cos (w * k) * cos (w * p).
Proof. intros; rewrite Rmult_plus_distr_l, cos_plus; ring. Qed.

Lemma pair_inner : forall w p q,
  sin (w * p) * sin (w * q) + cos (w * p) * cos (w * q) = cos (w * (p - q)).
Proof. intros; rewrite Rmult_minus_distr_l, cos_minus; ring. Qed.

Lemma pair_norm : forall t, sin t * sin t + cos t * cos t = 1.
Proof. intro t; rewrite <- (sin2_cos2 t); unfold Rsqr; ring. Qed.

Lemma pair_norm_pow : forall t, sin t ^ 2 + cos t ^ 2 = 1.
Proof. intro t; rewrite <- (pair_norm t); ring. Qed.

Lemma sin_mul_sin : forall a b, sin a * sin b = (cos (a - b) - cos (a + b)) / 2.
Proof. intros; rewrite cos_minus, cos_plus; field. Qed.

Lemma cos_mul_cos : forall a b, cos a * cos b = (cos (a - b) + cos (a + b)) / 2.
Proof. intros; rewrite cos_minus, cos_plus; field. Qed.

Lemma sin_mul_cos : forall a b, sin a * cos b = (sin (a + b) + sin (a - b)) / 2.
Proof. intros; rewrite sin_minus, sin_plus; field. Qed.

(** ** The encoding and the shift matrix *)

(** Component [j] of the encoding at position [p]: pair [j / 2], sine if [j] is even. *)
Definition pe (w : Z -> R) (p : R) (j : Z) : R :=
  if (j mod 2 =? 0)%Z then sin (w (j / 2)%Z * p) else cos (w (j / 2)%Z * p).

(** Entry [(r, c)] ([r, c] in [{0, 1}]) of the 2 x 2 block [[cos t, sin t], [- sin t, cos t]]
    acting on a pair [(sin, cos)]. *)
Definition rotent (r c : Z) (t : R) : R :=
  if (r =? 0)%Z then (if (c =? 0)%Z then cos t else sin t)
  else (if (c =? 0)%Z then - sin t else cos t).

(** Entry [(j, l)] of the [d x d] shift matrix [M_k]: block [j / 2] is the rotation by
    [w (j / 2) * k]; zero off the blocks. *)
Definition blk (w : Z -> R) (k : R) (j l : Z) : R :=
  if (j / 2 =? l / 2)%Z then rotent (j mod 2) (l mod 2) (w (j / 2)%Z * k) else 0.

Definition kron (j l : Z) : R := if (j =? l)%Z then 1 else 0.

Lemma half_even : forall a, ((2 * a) / 2 = a)%Z.
Proof. intros; zlia. Qed.
Lemma half_odd : forall a, ((2 * a + 1) / 2 = a)%Z.
Proof. intros; zlia. Qed.
Lemma mod_even : forall a, ((2 * a) mod 2 = 0)%Z.
Proof. intros; zlia. Qed.
Lemma mod_odd : forall a, ((2 * a + 1) mod 2 = 1)%Z.
Proof. intros; zlia. Qed.

Lemma parity_cases : forall j, (j = 2 * (j / 2))%Z \/ (j = 2 * (j / 2) + 1)%Z.
Proof. intros; zlia. Qed.

(** A sum over the [2 n] components that vanishes off block [a] is that block's two terms. *)
Lemma zsum_block : forall n a f, (0 <= a < n)%Z ->
  (forall m, (0 <= m < 2 * n)%Z -> (m / 2 <> a)%Z -> f m = 0) ->
  zsum 0 (2 * n - 1) f = f (2 * a)%Z + f (2 * a + 1)%Z.
Proof.
  intros n a f Ha H.
  rewrite <- (zsum_chasles 0 (2 * a - 1) (2 * n - 1)).
  replace (2 * a - 1 + 1)%Z with (2 * a)%Z by zlia.
  rewrite (zsum_first (2 * a)), (zsum_first (2 * a + 1)).
  replace (2 * a + 1 + 1)%Z with (2 * a + 2)%Z by zlia.
  rewrite (zsum_ext 0 (2 * a - 1) f (fun _ => 0)) by (zlia || (intros; apply H; zlia)).
  rewrite (zsum_ext (2 * a + 2) (2 * n - 1) f (fun _ => 0)) by (zlia || (intros; apply H; zlia)).
  rewrite !zsum_zero; ring.
Qed.

Ltac zhalf := rewrite ?half_even, ?half_odd, ?mod_even, ?mod_odd, ?Z.eqb_refl.

(** [PE(p + k) = M_k PE(p)], component [j] of a width [2 n]. *)
Theorem pe_shift : forall w p k n j, (0 <= j < 2 * n)%Z ->
  pe w (p + k) j = zsum 0 (2 * n - 1) (fun l => blk w k j l * pe w p l).
Proof.
  intros w p k n j Hj.
  rewrite (zsum_block n (j / 2)); [| zlia |].
  2: { intros m _ Hm; unfold blk; replace (j / 2 =? m / 2)%Z with false
         by (symmetry; apply Z.eqb_neq; zlia); ring. }
  destruct (parity_cases j) as [E|E]; rewrite E; set (a := (j / 2)%Z);
    unfold blk, pe, rotent; zhalf; simpl.
  - rewrite Rmult_plus_distr_l, sin_plus; ring.
  - rewrite Rmult_plus_distr_l, cos_plus; ring.
Qed.

(** The group law [M_a M_b = M_(a + b)], entrywise. *)
Theorem blk_group : forall w a b n j l, (0 <= j < 2 * n)%Z -> (0 <= l < 2 * n)%Z ->
  zsum 0 (2 * n - 1) (fun m => blk w a j m * blk w b m l) = blk w (a + b) j l.
Proof.
  intros w a b n j l Hj Hl.
  rewrite (zsum_block n (j / 2)); [| zlia |].
  2: { intros m _ Hm; unfold blk at 1; replace (j / 2 =? m / 2)%Z with false
         by (symmetry; apply Z.eqb_neq; zlia); ring. }
  set (c := (j / 2)%Z).
  destruct (Z.eq_dec c (l / 2)) as [El|El].
  - destruct (parity_cases j) as [E|E]; rewrite E; fold c;
    destruct (parity_cases l) as [F|F]; rewrite F; rewrite <- El;
    unfold blk, rotent; zhalf; simpl;
    rewrite ?Rmult_plus_distr_l, ?sin_plus, ?cos_plus; ring.
  - unfold blk; zhalf; subst c.
    replace (j / 2 =? l / 2)%Z with false by (symmetry; apply Z.eqb_neq; zlia).
    replace (j / 2 =? l / 2)%Z with false by (symmetry; apply Z.eqb_neq; zlia); ring.
Qed.

(** [M_0 = I]. *)
Theorem blk_zero : forall w j l, blk w 0 j l = kron j l.
Proof.
  intros w j l; unfold blk, kron, rotent; rewrite Rmult_0_r, sin_0, cos_0.
  destruct (Z.eq_dec (j / 2) (l / 2)) as [E|E].
  - rewrite (proj2 (Z.eqb_eq _ _) E).
    replace (j =? l)%Z with (j mod 2 =? l mod 2)%Z
      by (destruct (Z.eqb_spec j l); destruct (Z.eqb_spec (j mod 2) (l mod 2)); zlia).
    assert (Hr : (j mod 2 = 0 \/ j mod 2 = 1)%Z) by zlia.
    assert (Hs : (l mod 2 = 0 \/ l mod 2 = 1)%Z) by zlia.
    destruct Hr as [Hr|Hr]; destruct Hs as [Hs|Hs]; rewrite Hr, Hs; simpl; ring.
  - rewrite (proj2 (Z.eqb_neq _ _) E).
    replace (j =? l)%Z with false by (symmetry; apply Z.eqb_neq; intro; subst; zlia); reflexivity.
Qed.

(** [M_(-k) = M_k^T]. *)
Theorem blk_transpose : forall w k j l, blk w (- k) j l = blk w k l j.
Proof.
  intros w k j l; unfold blk.
  destruct (Z.eq_dec (j / 2) (l / 2)) as [E|E].
  - rewrite (proj2 (Z.eqb_eq _ _) E), (proj2 (Z.eqb_eq _ _) (eq_sym E)), E.
    unfold rotent; rewrite <- Ropp_mult_distr_r, sin_neg, cos_neg.
    assert (Hr : (j mod 2 = 0 \/ j mod 2 = 1)%Z) by zlia.
    assert (Hs : (l mod 2 = 0 \/ l mod 2 = 1)%Z) by zlia.
    destruct Hr as [Hr|Hr]; destruct Hs as [Hs|Hs]; rewrite Hr, Hs; simpl; ring.
  - rewrite (proj2 (Z.eqb_neq _ _) E).
    rewrite (proj2 (Z.eqb_neq _ _) (not_eq_sym E)); reflexivity.
Qed.

(** [M_k M_k^T = I]: the inverse is the transpose. *)
Theorem blk_inverse : forall w k n j l, (0 <= j < 2 * n)%Z -> (0 <= l < 2 * n)%Z ->
  zsum 0 (2 * n - 1) (fun m => blk w k j m * blk w k l m) = kron j l.
Proof.
  intros w k n j l Hj Hl.
  rewrite (zsum_ext_all _ _ _ (fun m => blk w k j m * blk w (- k) m l))
    by (intro m; rewrite blk_transpose; reflexivity).
  rewrite blk_group by assumption; rewrite Rplus_opp_r; apply blk_zero.
Qed.

(** [M_k^T M_k = I]: orthogonality. *)
Theorem blk_orthogonal : forall w k n j l, (0 <= j < 2 * n)%Z -> (0 <= l < 2 * n)%Z ->
  zsum 0 (2 * n - 1) (fun m => blk w k m j * blk w k m l) = kron j l.
Proof.
  intros w k n j l Hj Hl.
  rewrite (zsum_ext_all _ _ _ (fun m => blk w (- k) j m * blk w k m l))
    by (intro m; rewrite blk_transpose; reflexivity).
  rewrite blk_group by assumption; rewrite Rplus_opp_l; apply blk_zero.
Qed.

(** Per block: [det [[cos t, sin t], [- sin t, cos t]] = 1]. *)
Theorem shift_det : forall t, rotent 0 0 t * rotent 1 1 t - rotent 0 1 t * rotent 1 0 t = 1.
Proof. intro t; unfold rotent; simpl; rewrite <- (pair_norm t); ring. Qed.

(** ** Sums over the pairs (any limits) *)

Theorem inner_sum : forall (w : Z -> R) p q a b,
  zsum a b (fun i => sin (w i * p) * sin (w i * q) + cos (w i * p) * cos (w i * q))
  = zsum a b (fun i => cos (w i * (p - q))).
Proof. intros; apply zsum_ext_all; intro; apply pair_inner. Qed.

(** The inner product of [PE(p)] and [PE(p + k)] is [sum_i cos (w_i k)]. *)
Theorem inner_offset : forall (w : Z -> R) p k a b,
  zsum a b (fun i => sin (w i * p) * sin (w i * (p + k)) + cos (w i * p) * cos (w i * (p + k)))
  = zsum a b (fun i => cos (w i * k)).
Proof.
  intros; apply zsum_ext_all; intro i; rewrite pair_inner.
  replace (w i * (p - (p + k))) with (- (w i * k)) by ring; apply cos_neg.
Qed.

Theorem inner_depends_only_on_offset : forall (w : Z -> R) p q k a b,
  zsum a b (fun i => sin (w i * p) * sin (w i * (p + k)) + cos (w i * p) * cos (w i * (p + k)))
  = zsum a b (fun i => sin (w i * q) * sin (w i * (q + k)) + cos (w i * q) * cos (w i * (q + k))).
Proof. intros; rewrite !inner_offset; reflexivity. Qed.

Theorem inner_even_in_offset : forall (w : Z -> R) k a b,
  zsum a b (fun i => cos (w i * k)) = zsum a b (fun i => cos (w i * (- k))).
Proof.
  intros; apply zsum_ext_all; intro i; rewrite <- Ropp_mult_distr_r, cos_neg; reflexivity.
Qed.

Theorem norm_sum : forall (w : Z -> R) p a b,
  zsum a b (fun i => sin (w i * p) ^ 2 + cos (w i * p) ^ 2) = IZR (b - a + 1).
Proof.
  intros; rewrite (zsum_ext_all _ _ _ (fun _ => 1)) by (intro; apply pair_norm_pow).
  rewrite zsum_const; ring.
Qed.

(** The squared norm of the encoding of an even width [d] is [d / 2] (no other condition on [d]:
    for [d <= 0] both sides follow SymPy's convention for the reversed sum). *)
Theorem norm_half_d : forall (w : Z -> R) p d, Z.Even d ->
  zsum 0 (d / 2 - 1) (fun i => sin (w i * p) ^ 2 + cos (w i * p) ^ 2) = IZR d / 2.
Proof.
  intros w p d [n E]; subst d; rewrite norm_sum.
  replace (2 * n / 2 - 1 - 0 + 1)%Z with n by zlia; rewrite mult_IZR; field.
Qed.

Theorem sum_sin_mul_sin : forall (w : Z -> R) p q a b,
  zsum a b (fun i => sin (w i * p) * sin (w i * q))
  = zsum a b (fun i => cos (w i * (p - q))) / 2 - zsum a b (fun i => cos (w i * (p + q))) / 2.
Proof.
  intros; unfold Rdiv; rewrite !(Rmult_comm (zsum a b _)), <- !zsum_scal, <- zsum_minus.
  apply zsum_ext_all; intro i; rewrite sin_mul_sin, Rmult_minus_distr_l, Rmult_plus_distr_l.
  field.
Qed.

Theorem sum_cos_mul_cos : forall (w : Z -> R) p q a b,
  zsum a b (fun i => cos (w i * p) * cos (w i * q))
  = zsum a b (fun i => cos (w i * (p - q))) / 2 + zsum a b (fun i => cos (w i * (p + q))) / 2.
Proof.
  intros; unfold Rdiv; rewrite !(Rmult_comm (zsum a b _)), <- !zsum_scal, <- zsum_plus.
  apply zsum_ext_all; intro i; rewrite cos_mul_cos, Rmult_minus_distr_l, !Rmult_plus_distr_l.
  field.
Qed.

(** ** The paper's frequencies, and the [h - 1] family *)

(** [10000^(-2 i / d)]: SymPy's [1/10000**(2*i/d)] (base [10000 > 0], so [rpow] agrees). *)
Definition paper_freq (d i : Z) : R := / rpow 10000 (2 * IZR i / IZR d).

Lemma paper_freq_pos : forall d i, 0 < paper_freq d i.
Proof. intros; unfold paper_freq; apply Rinv_0_lt_compat, rpow_pos. Qed.

Lemma paper_freq_as_rpow : forall d i, paper_freq d i = rpow 10000 (- (2 * IZR i / IZR d)).
Proof. intros; unfold paper_freq; rewrite rpow_opp; reflexivity. Qed.

Lemma paper_freq_0 : forall d, paper_freq d 0 = 1.
Proof.
  intros; unfold paper_freq; replace (2 * IZR 0 / IZR d) with 0 by (unfold Rdiv; ring).
  rewrite rpow_0; apply Rinv_1.
Qed.

(** For [d > 0] the frequencies decrease strictly with the pair index. *)
Lemma paper_freq_decreasing : forall d i j, (0 < d)%Z -> (i < j)%Z ->
  paper_freq d j < paper_freq d i.
Proof.
  intros d i j Hd Hij; unfold paper_freq.
  apply Rinv_lt_contravar; [apply Rmult_lt_0_compat; apply rpow_pos|].
  apply rpow_lt; [lra|].
  apply IZR_lt in Hd; apply IZR_lt in Hij.
  unfold Rdiv; apply Rmult_lt_compat_r; [apply Rinv_0_lt_compat; exact Hd | lra].
Qed.

(** The [h - 1] family (tensor2tensor, fairseq, whisper): [10000^(-i / (h - 1))], [h = d/2]. *)
Definition hm1_freq (h i : Z) : R := / rpow 10000 (IZR i / (IZR h - 1)).

Lemma hm1_freq_pos : forall h i, 0 < hm1_freq h i.
Proof. intros; unfold hm1_freq; apply Rinv_0_lt_compat, rpow_pos. Qed.

(** Instances for the paper's encoding of width [d]. *)
Corollary paper_norm : forall p d, Z.Even d ->
  zsum 0 (d / 2 - 1)
    (fun i => sin (paper_freq d i * p) ^ 2 + cos (paper_freq d i * p) ^ 2) = IZR d / 2.
Proof. intros; apply (norm_half_d (paper_freq d)); assumption. Qed.

Corollary paper_inner_offset : forall p k d,
  zsum 0 (d / 2 - 1) (fun i =>
    sin (paper_freq d i * p) * sin (paper_freq d i * (p + k))
    + cos (paper_freq d i * p) * cos (paper_freq d i * (p + k)))
  = zsum 0 (d / 2 - 1) (fun i => cos (paper_freq d i * k)).
Proof. intros; apply (inner_offset (paper_freq d)). Qed.

Corollary paper_shift : forall p k d j, Z.Even d -> (0 <= j < d)%Z ->
  pe (paper_freq d) (p + k) j
  = zsum 0 (d - 1) (fun l => blk (paper_freq d) k j l * pe (paper_freq d) p l).
Proof.
  intros p k d j [n E] Hj; subst d; apply pe_shift; assumption.
Qed.
