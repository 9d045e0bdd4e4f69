(** * Floor: a lower bound of [sum_i (2 - 2 cos (n w_i))] at every integer offset in a range

    Logical path [PEProof.Floor].  The squared distance of two positions of the encoding is
    [sum_i (sin (a w_i) - sin (b w_i))^2 + (cos (a w_i) - cos (b w_i))^2], which is
    [G (b - a)] with [G x = sum_i (2 - 2 cos (x w_i))] ([pair_sq]).  "No two positions below
    [N] are closer than [0] and [k]" is [G k <= G n] for every [1 <= n <= N - 1].

    [floor_scan] proves it from a certificate: blocks [[n0, n1]] covering the range (the offset
    [k] itself may be left out: there the two sides are equal), each with a lower bound of [G]
    on the block strictly above [G k]'s enclosure: the terms [j0..j1] at [n0] less their
    largest move on the block ([term_lb]), the other terms as 0 (they are never negative).  A
    block far from the minimum is one evaluation; near it, blocks shrink to single offsets.  [chk] is computed by Coq's VM
    ([vm_compute], re-run by the kernel at [Qed]); Python only proposes the blocks: a wrong one
    makes [chk] false and the proof fail.  The interval operations are Decay.v's [PEI]
    (CoqInterval's, on primitive floats) with their enclosure lemmas [inR_*].
*)

From Coq Require Import ZArith Reals Lia Lra List Bool.
From Interval Require Import Interval.Interval Interval.Float_full Float.Primitive_ops Real.Xreal.
From PEProof Require Import Defs Sem Decay.
Open Scope R_scope.

Lemma pair_sq : forall x y, (sin x - sin y) ^ 2 + (cos x - cos y) ^ 2 = 2 - 2 * cos (x - y).
Proof.
  intros x y; rewrite cos_minus.
  pose proof (sin2_cos2 x) as Hx; pose proof (sin2_cos2 y) as Hy; unfold Rsqr in Hx, Hy.
  transitivity ((sin x * sin x + cos x * cos x) + (sin y * sin y + cos y * cos y)
                - 2 * (cos x * cos y + sin x * sin y)); [ring | rewrite Hx, Hy; ring].
Qed.

Lemma one_sq : forall x, (1 - cos x) ^ 2 + sin x ^ 2 = 2 - 2 * cos x.
Proof.
  intros x; pose proof (sin2_cos2 x) as Hx; unfold Rsqr in Hx.
  transitivity (1 + (sin x * sin x + cos x * cos x) - 2 * cos x); [ring | rewrite Hx; ring].
Qed.

Definition G (lo hi : Z) (om : Z -> R) (x : R) : R :=
  zsum lo hi (fun i => 2 - 2 * cos (x * om i)).

Lemma inR_inv : forall prec xi x, x <> 0 -> inR xi x -> inR (PEI.inv prec xi) (/ x).
Proof.
  intros prec xi x Hx0 Hx; generalize (PEI.inv_correct prec xi _ Hx).
  unfold inR, Xinv'; simpl; rewrite (is_zero_false x Hx0); exact (fun h => h).
Qed.

Lemma inR_rpow : forall prec bi ei b e, 0 < b -> inR bi b -> inR ei e ->
  inR (PEI.exp prec (PEI.mul prec ei (PEI.ln prec bi))) (rpow b e).
Proof.
  intros prec bi ei b e Hb Hbi Hei; unfold rpow, Rpower.
  apply inR_exp, inR_mul; [exact Hei | apply inR_ln; assumption].
Qed.

Section Scan.
Variable prec : PEI.precision.

Fixpoint isum_n (a : Z) (n : nat) (g : Z -> PEI.type) : PEI.type :=
  match n with
  | O => PEI.zero
  | S m => PEI.add prec (isum_n a m g) (g (a + Z.of_nat m)%Z)
  end.

Lemma isum_n_correct : forall a n g f,
  (forall i, (a <= i < a + Z.of_nat n)%Z -> inR (g i) (f i)) -> inR (isum_n a n g) (zsum_n a n f).
Proof.
  intros a n g f; induction n as [|n IH]; intros H; simpl; [exact inR_zero|].
  apply inR_add; [apply IH; intros i Hi; apply H; lia | apply H; lia].
Qed.

Definition iterm (xi wi : PEI.type) : PEI.type :=
  PEI.sub prec (PEI.fromZ prec 2) (PEI.mul prec (PEI.fromZ prec 2) (PEI.cos prec (PEI.mul prec xi wi))).

Definition iG (lo hi : Z) (omi : Z -> PEI.type) (xi : PEI.type) : PEI.type :=
  isum_n lo (Z.to_nat (hi + 1 - lo)) (fun i => iterm xi (omi i)).

Lemma iG_correct : forall lo hi om omi x xi, (lo <= hi + 1)%Z ->
  (forall i, (lo <= i <= hi)%Z -> inR (omi i) (om i)) -> inR xi x ->
  inR (iG lo hi omi xi) (G lo hi om x).
Proof.
  intros lo hi om omi x xi Hlh Hom Hx; unfold G, zsum, iG.
  replace (lo <=? hi + 1)%Z with true by (symmetry; apply Z.leb_le; lia).
  apply isum_n_correct; intros i Hi; rewrite Z2Nat.id in Hi by lia.
  apply inR_sub; [apply inR_fromZ|]. apply inR_mul; [apply inR_fromZ|].
  apply inR_cos, inR_mul; [exact Hx | apply Hom; lia].
Qed.

(** A term on a block: [cos] moves by at most the distance of its arguments ([cos_lip]), so
    on [[n0, n1]] the term [2 - 2 cos (x w)] is at least its value at [n0] minus
    [2 (n1 - n0) |w|]; and it is never negative.  (CoqInterval's [cos] of a wide interval far
    from 0 is often [[-1, 1]] or reaches 1: a value at a point and this slack are tighter.) *)
Lemma sin_abs_le : forall x, Rabs (sin x) <= Rabs x.
Proof.
  intros x; destruct (Rle_or_lt 0 x) as [Hx|Hx].
  - destruct (Rle_or_lt x 1) as [H1|H1].
    + destruct (Req_dec x 0) as [->|H0]; [rewrite sin_0, Rabs_R0; lra|].
      assert (0 < sin x) by (apply sin_gt_0; pose proof PI2_3_2; lra).
      pose proof (sin_lt_x x ltac:(lra)); rewrite !Rabs_pos_eq by lra; lra.
    + pose proof (SIN_bound x); rewrite (Rabs_pos_eq x) by lra; apply Rabs_le; lra.
  - destruct (Rle_or_lt (-1) x) as [H1|H1].
    + assert (0 < sin (- x)) by (apply sin_gt_0; pose proof PI2_3_2; lra).
      pose proof (sin_lt_x (- x) ltac:(lra)); rewrite sin_neg in *.
      rewrite Rabs_left by lra; rewrite Rabs_left by lra; lra.
    + pose proof (SIN_bound x); rewrite (Rabs_left x) by lra; apply Rabs_le; lra.
Qed.

Lemma cos_lip : forall a b, cos b <= cos a + Rabs (a - b).
Proof.
  intros a b; pose proof (form2 b a) as E.
  pose proof (sin_abs_le ((b - a) / 2)) as H1; pose proof (SIN_bound ((b + a) / 2)) as H2.
  assert (Rabs (cos b - cos a) <= Rabs (a - b)).
  { rewrite E, !Rabs_mult; replace (Rabs (-2)) with 2 by (rewrite Rabs_left; lra).
    replace (Rabs (a - b)) with (2 * Rabs ((b - a) / 2)) by (unfold Rdiv;
      rewrite Rabs_mult, (Rabs_pos_eq (/ 2)) by lra; rewrite (Rabs_minus_sym a b); field).
    assert (Rabs (sin ((b + a) / 2)) <= 1) by (apply Rabs_le; lra).
    pose proof (Rabs_pos (sin ((b - a) / 2))); pose proof (Rabs_pos (sin ((b + a) / 2))).
    nra. }
  pose proof (Rle_abs (cos b - cos a)); lra.
Qed.

Lemma one_minus_cos_le : forall h, 1 - cos h <= h ^ 2 / 2.
Proof.
  intros h; replace h with (2 * (h / 2)) at 1 by field; rewrite cos_2a_sin.
  pose proof (Rsqr_le_abs_1 _ _ (sin_abs_le (h / 2))) as H; unfold Rsqr in H.
  replace (h ^ 2 / 2) with (2 * ((h / 2) * (h / 2))) by field; lra.
Qed.

Lemma cos_taylor : forall a h, cos (a + h) <= cos a + Rabs (sin a) * Rabs h + h ^ 2 / 2.
Proof.
  intros a h; rewrite cos_plus.
  pose proof (one_minus_cos_le h); pose proof (COS_bound a); pose proof (COS_bound h).
  pose proof (sin_abs_le h); pose proof (Rle_abs (- (sin a * sin h))).
  rewrite Rabs_Ropp, Rabs_mult in *.
  assert (Rabs (sin a) * Rabs (sin h) <= Rabs (sin a) * Rabs h)
    by (apply Rmult_le_compat_l; [apply Rabs_pos | assumption]).
  assert (cos a * cos h <= cos a + (1 - cos h)) by nra.
  lra.
Qed.

(** On [[n0, n1]] the term [2 - 2 cos (x w)] is at least its value at [n0] less
    [2 |sin (n0 w)| (n1 - n0) |w| + ((n1 - n0) w)^2] ([cos_taylor]). *)
Lemma term_lb : forall n0 n1 x w, IZR n0 <= x <= IZR n1 ->
  2 - 2 * cos (IZR n0 * w) - (2 * Rabs (sin (IZR n0 * w)) * (IZR (n1 - n0) * Rabs w)
                              + (IZR (n1 - n0) * w) ^ 2) <= 2 - 2 * cos (x * w).
Proof.
  intros n0 n1 x w Hx; rewrite minus_IZR.
  pose proof (cos_taylor (IZR n0 * w) ((x - IZR n0) * w)) as H.
  replace (IZR n0 * w + (x - IZR n0) * w) with (x * w) in H by ring.
  assert (Hh : Rabs ((x - IZR n0) * w) <= (IZR n1 - IZR n0) * Rabs w).
  { rewrite Rabs_mult, (Rabs_pos_eq (x - IZR n0)) by lra.
    apply Rmult_le_compat_r; [apply Rabs_pos | lra]. }
  assert (H2 : ((x - IZR n0) * w) ^ 2 <= ((IZR n1 - IZR n0) * w) ^ 2).
  { rewrite !Rpow_mult_distr. apply Rmult_le_compat_r; [apply pow2_ge_0|].
    apply pow_incr; lra. }
  assert (Rabs (sin (IZR n0 * w)) * Rabs ((x - IZR n0) * w)
          <= Rabs (sin (IZR n0 * w)) * ((IZR n1 - IZR n0) * Rabs w))
    by (apply Rmult_le_compat_l; [apply Rabs_pos | exact Hh]).
  lra.
Qed.

Lemma term_nonneg : forall x w, 0 <= 2 - 2 * cos (x * w).
Proof. intros; pose proof (COS_bound (x * w)); lra. Qed.

Lemma zsum_n_le : forall a n f g, (forall i, (a <= i < a + Z.of_nat n)%Z -> f i <= g i) ->
  zsum_n a n f <= zsum_n a n g.
Proof.
  intros a n f g; induction n as [|n IH]; intros H; simpl; [lra|].
  apply Rplus_le_compat; [apply IH; intros; apply H; lia | apply H; lia].
Qed.

(** The lower bound of [G] on a block, the terms [j0..j1] counted, the others as 0. *)
Definition lowt (om : Z -> R) (n0 n1 j0 j1 i : Z) : R :=
  if (Z.leb j0 i && Z.leb i j1)%bool
  then 2 - 2 * cos (IZR n0 * om i) - (2 * Rabs (sin (IZR n0 * om i)) * (IZR (n1 - n0) * Rabs (om i))
                                      + (IZR (n1 - n0) * om i) ^ 2) else 0.

Definition ilowt (omi : Z -> PEI.type) (n0 n1 j0 j1 i : Z) : PEI.type :=
  if (Z.leb j0 i && Z.leb i j1)%bool
  then let x := PEI.mul prec (PEI.fromZ prec n0) (omi i) in
       let h := PEI.fromZ prec (n1 - n0) in
       PEI.sub prec (PEI.sub prec (PEI.fromZ prec 2) (PEI.mul prec (PEI.fromZ prec 2) (PEI.cos prec x)))
         (PEI.add prec (PEI.mul prec (PEI.mul prec (PEI.fromZ prec 2) (PEI.abs (PEI.sin prec x)))
                                     (PEI.mul prec h (PEI.abs (omi i))))
                       (PEI.sqr prec (PEI.mul prec h (omi i))))
  else PEI.zero.

Definition iB (lo hi : Z) (omi : Z -> PEI.type) (n0 n1 j0 j1 : Z) : PEI.type :=
  isum_n lo (Z.to_nat (hi + 1 - lo)) (ilowt omi n0 n1 j0 j1).

Lemma iB_correct : forall lo hi om omi n0 n1 j0 j1, (lo <= hi + 1)%Z ->
  (forall i, (lo <= i <= hi)%Z -> inR (omi i) (om i)) ->
  inR (iB lo hi omi n0 n1 j0 j1) (zsum lo hi (lowt om n0 n1 j0 j1)).
Proof.
  intros lo hi om omi n0 n1 j0 j1 Hlh Hom; unfold zsum, iB.
  replace (lo <=? hi + 1)%Z with true by (symmetry; apply Z.leb_le; lia).
  apply isum_n_correct; intros i Hi; rewrite Z2Nat.id in Hi by lia.
  unfold ilowt, lowt; destruct (Z.leb j0 i && Z.leb i j1)%bool; [|exact inR_zero].
  assert (Hw := Hom i ltac:(lia)).
  assert (Hx : inR (PEI.mul prec (PEI.fromZ prec n0) (omi i)) (IZR n0 * om i))
    by (apply inR_mul; [apply inR_fromZ | exact Hw]).
  apply inR_sub; [apply inR_sub; [apply inR_fromZ | apply inR_mul; [apply inR_fromZ|]]|].
  - apply inR_cos; exact Hx.
  - apply inR_add; [apply inR_mul; [apply inR_mul; [apply inR_fromZ | apply inR_abs, inR_sin; exact Hx]|]|].
    + apply inR_mul; [apply inR_fromZ | apply inR_abs; exact Hw].
    + apply inR_sqr, inR_mul; [apply inR_fromZ | exact Hw].
Qed.

Lemma lowt_le_G : forall lo hi om n0 n1 j0 j1 x, (lo <= hi + 1)%Z -> IZR n0 <= x <= IZR n1 ->
  zsum lo hi (lowt om n0 n1 j0 j1) <= G lo hi om x.
Proof.
  intros lo hi om n0 n1 j0 j1 x Hlh Hx; unfold G, zsum.
  replace (lo <=? hi + 1)%Z with true by (symmetry; apply Z.leb_le; lia).
  apply zsum_n_le; intros i Hi; unfold lowt.
  destruct (Z.leb j0 i && Z.leb i j1)%bool; [apply term_lb; exact Hx | apply term_nonneg].
Qed.

(** The certificate: consecutive blocks from [next] to [top], [k] possibly skipped, each one
    integer [c = len * 2^24 + i0 * 2^12 + i1] (a list of integers elaborates far faster than
    one of tuples): the block [[next, next + len - 1]], the terms [lo + i0 .. lo + i1]
    counted, its lower bound strictly above [G k]'s enclosure [Li]. *)
Definition blen (c : Z) : Z := (c / 16777216)%Z.
Definition bj0 (lo c : Z) : Z := (lo + (c / 4096) mod 4096)%Z.
Definition bj1 (lo c : Z) : Z := (lo + c mod 4096)%Z.

Fixpoint chk (lo hi : Z) (omi : Z -> PEI.type) (Li : PEI.type) (k next top : Z)
             (bs : list Z) : bool :=
  let n0 := if Z.eqb next k then (next + 1)%Z else next in
  match bs with
  | nil => Z.eqb n0 (top + 1)
  | c :: rest =>
      let n1 := (n0 + blen c - 1)%Z in
      Z.leb n0 n1 && ilt prec Li (iB lo hi omi n0 n1 (bj0 lo c) (bj1 lo c))
      && chk lo hi omi Li k (n1 + 1) top rest
  end.

Lemma chk_correct : forall lo hi om omi k top bs next, (lo <= hi + 1)%Z ->
  (forall i, (lo <= i <= hi)%Z -> inR (omi i) (om i)) ->
  chk lo hi omi (iG lo hi omi (PEI.fromZ prec k)) k next top bs = true ->
  forall n, (next <= n <= top)%Z -> G lo hi om (IZR k) <= G lo hi om (IZR n).
Proof.
  intros lo hi om omi k top bs; induction bs as [|c rest IH];
    intros next Hlh Hom Hc n Hn; simpl in Hc.
  - apply Z.eqb_eq in Hc.
    destruct (Z.eqb_spec next k); [| lia].
    assert (n = k) by lia; subst n; lra.
  - set (n0 := if (next =? k)%Z then (next + 1)%Z else next) in Hc.
    apply andb_prop in Hc as [Hc Hrest]; apply andb_prop in Hc as [H01 Hlt].
    apply Z.leb_le in H01.
    assert (Hk : inR (iG lo hi omi (PEI.fromZ prec k)) (G lo hi om (IZR k)))
      by (apply iG_correct; [exact Hlh | exact Hom | apply inR_fromZ]).
    destruct (Z.eq_dec n k) as [->|Hnk]; [lra|].
    destruct (Z_le_gt_dec n (n0 + blen c - 1)) as [Hn1|Hn1].
    + assert (Hn0 : (n0 <= n)%Z) by (unfold n0; destruct (Z.eqb_spec next k); lia).
      apply Rlt_le; apply Rlt_le_trans
        with (zsum lo hi (lowt om n0 (n0 + blen c - 1) (bj0 lo c) (bj1 lo c))).
      * refine (ilt_correct prec _ (iB lo hi omi n0 (n0 + blen c - 1) (bj0 lo c) (bj1 lo c))
                  _ _ Hk _ Hlt).
        apply iB_correct; [exact Hlh | exact Hom].
      * apply lowt_le_G; [exact Hlh | split; apply IZR_le; lia].
    + apply (IH (n0 + blen c - 1 + 1)%Z Hlh Hom Hrest).
      unfold n0 in Hn1; destruct (Z.eqb_spec next k); lia.
Qed.

(** The frequencies' enclosures computed once, in a table ([omi] itself would be evaluated
    again for every term of every block). *)
Fixpoint mktab (omi : Z -> PEI.type) (a : Z) (n : nat) : list PEI.type :=
  match n with O => nil | S m => omi a :: mktab omi (a + 1)%Z m end.

Definition tab (ws : list PEI.type) (lo i : Z) : PEI.type := nth (Z.to_nat (i - lo)) ws PEI.zero.

Lemma tab_correct : forall om omi lo hi,
  (forall i, (lo <= i <= hi)%Z -> inR (omi i) (om i)) ->
  forall i, (lo <= i <= hi)%Z -> inR (tab (mktab omi lo (Z.to_nat (hi + 1 - lo))) lo i) (om i).
Proof.
  intros om omi lo hi H i Hi; unfold tab.
  assert (E : forall n a j, (j < n)%nat -> nth j (mktab omi a n) PEI.zero = omi (a + Z.of_nat j)%Z).
  { induction n as [|n IH]; intros a j Hj; [lia|]; destruct j as [|j]; simpl.
    - f_equal; lia.
    - rewrite IH by lia; f_equal; lia. }
  rewrite E by lia; rewrite Z2Nat.id by lia; replace (lo + (i - lo))%Z with i by lia.
  apply H; exact Hi.
Qed.

(** The statement's form: the floor [L] (equal to [G k]) below [G n] on [[n1, n2]]. *)
Lemma floor_scan : forall lo hi om omi L k bs n1 n2, (lo <= hi + 1)%Z ->
  (forall i, (lo <= i <= hi)%Z -> inR (omi i) (om i)) ->
  L = G lo hi om (IZR k) ->
  (let w := tab (mktab omi lo (Z.to_nat (hi + 1 - lo))) lo in
   chk lo hi w (iG lo hi w (PEI.fromZ prec k)) k n1 n2 bs) = true ->
  forall n, (n1 <= n <= n2)%Z -> L <= G lo hi om (IZR n).
Proof.
  intros lo hi om omi L k bs n1 n2 Hlh Hom HL Hc; subst L.
  eapply chk_correct; [exact Hlh | apply tab_correct; exact Hom | exact Hc].
Qed.
End Scan.

(** [pe_ivx p t]: [inR p ?i t] for a term [t] of + - * / opposites, integers (a variable
    included: the interval is computed only once it is instantiated), [rpow], [exp], [ln],
    [cos], [sin], [sqrt]; fails on anything else. *)
Ltac pe_ivx p t :=
  lazymatch t with
  | ?a + ?b => let ha := pe_ivx p a in let hb := pe_ivx p b in constr:(inR_add p _ _ a b ha hb)
  | ?a - ?b => let ha := pe_ivx p a in let hb := pe_ivx p b in constr:(inR_sub p _ _ a b ha hb)
  | ?a * ?b => let ha := pe_ivx p a in let hb := pe_ivx p b in constr:(inR_mul p _ _ a b ha hb)
  | ?a / ?b => let ha := pe_ivx p a in let hb := pe_ivx p b in
               constr:(inR_div p _ _ a b ltac:(first [apply rpow_neq_0 | intro; lra]) ha hb)
  | / ?a => let ha := pe_ivx p a in
            constr:(inR_inv p _ a ltac:(first [apply rpow_neq_0 | intro; lra]) ha)
  | - ?a => let ha := pe_ivx p a in constr:(inR_neg _ a ha)
  | rpow ?b ?e => let hb := pe_ivx p b in let he := pe_ivx p e in
                  constr:(inR_rpow p _ _ b e ltac:(lra) hb he)
  | exp ?a => let ha := pe_ivx p a in constr:(inR_exp p _ a ha)
  | cos ?a => let ha := pe_ivx p a in constr:(inR_cos p _ a ha)
  | sin ?a => let ha := pe_ivx p a in constr:(inR_sin p _ a ha)
  | sqrt ?a => let ha := pe_ivx p a in constr:(inR_sqrt p _ a ha)
  | ?a ^ 2 => let ha := pe_ivx p a in constr:(inR_sqr p _ a ha)
  | IZR ?z => constr:(inR_fromZ p z)
  end.

(** The arguments of two cosines equal, or opposite ([field], [rpow] never 0). *)
Ltac pe_floor_field :=
  rewrite ?minus_IZR, ?plus_IZR, ?opp_IZR, ?mult_IZR, ?rpow_opp; field;
  repeat first [ apply rpow_neq_0 | (apply not_0_IZR; lia) | lra ].

(** The left side [T] of [T = _], a term [(sin x - sin y)^2 + (cos x - cos y)^2] or
    [(1 - cos x)^2 + sin x^2] in any order and signs SymPy prints ([- sin x + sin y],
    [cos x - 1]), as [2 - 2 cos (x - y)] or [2 - 2 cos x] ([pair_sq], [one_sq], then [ring]). *)
Ltac pe_floor_sq :=
  match goal with
  | |- ?T = _ =>
      first [ match T with context [sin ?x] => match T with context [sin ?y] =>
                assert_fails (constr_eq x y);
                replace T with (2 - 2 * cos (x - y)) by (rewrite <- pair_sq; ring) end end
            | match T with context [sin ?x] =>
                replace T with (2 - 2 * cos x) by (rewrite <- one_sq; ring) end ]
  end.

(** The same term equal to [2 - 2 cos (v)]. *)
Ltac pe_floor_term :=
  pe_floor_sq;
  match goal with
  | |- 2 - 2 * cos ?u = 2 - 2 * cos ?v =>
      first [ replace u with v by pe_floor_field; reflexivity
            | replace u with (- v) by pe_floor_field; rewrite cos_neg; reflexivity ]
  end.

(** [L <= R] with [L] the floor at offset [k], [R] the sum at the offset [n] (a Z term),
    frequencies [om], the blocks [bs] covering [[n1, n2]]. *)
Ltac pe_floor om k n bs n1 n2 :=
  let p := constr:(53%Z) in
  match goal with
  | |- zsum ?lo ?hi ?f <= zsum ?lo ?hi ?g =>
      replace (zsum lo hi g) with (G lo hi om (IZR n))
        by (symmetry; apply zsum_ext_all; intros pe_i; cbv beta; pe_floor_term);
      eapply (floor_scan p lo hi om _ _ k bs n1 n2);
      [ lia
      | intros pe_i pe_Hi; cbv beta;
        match goal with |- inR _ ?t => let h := pe_ivx p t in exact h end
      | apply zsum_ext_all; intros pe_i; cbv beta; pe_floor_term
      | vm_compute; reflexivity
      | lia ]
  end.
